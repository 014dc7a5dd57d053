/** `GET /cli`: short alias of the CLI documentation page. */

import { define } from "../lib/http/define.ts";
import { docResponse } from "../lib/http/docs_response.ts";

export const handler = define.handlers({ GET: (c) => docResponse(c, "cli") });
