/** `GET /openapi.json`: the OpenAPI 3.1 description (DESIGN §11). */

import { define } from "../lib/http/kernel/define.ts";
import { openApiResponse } from "../lib/http/kernel/discovery_response.ts";

export const handler = define.handlers({ GET: openApiResponse });
