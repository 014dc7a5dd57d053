/** `GET /deprecation`: the versioning and deprecation policy. */

import { define } from "../lib/http/define.ts";
import { docResponse } from "../lib/http/docs_response.ts";

export const handler = define.handlers({ GET: (c) => docResponse(c, "versioning") });
