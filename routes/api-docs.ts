/** `GET /api-docs`: alias of the developer overview. */

import { define } from "../lib/http/kernel/define.ts";
import { docResponse } from "../lib/http/kernel/docs_response.ts";

export const handler = define.handlers({ GET: (c) => docResponse(c, "developers") });
