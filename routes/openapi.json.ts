/** `GET /openapi.json`: the OpenAPI 3.1 description (DESIGN §11). */

import { define } from "../lib/http/define.ts";
import { openApiResponse } from "../lib/http/discovery_response.ts";

export const handler = define.handlers({ GET: openApiResponse });
