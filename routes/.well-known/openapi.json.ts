/** `GET /.well-known/openapi.json`: the alternate location of `/openapi.json` (DESIGN §11). */

import { define } from "../../lib/http/define.ts";
import { openApiResponse } from "../../lib/http/discovery_response.ts";

export const handler = define.handlers({ GET: openApiResponse });
