/**
 * `GET /help`: the member-facing help (issue #25), the documentation page content/docs/help.md —
 * HTML, or its Markdown on `Accept: text/markdown` (the docs' one negotiation, lib/http/kernel/docs_response.ts).
 */

import { define } from "../lib/http/kernel/define.ts";
import { docResponse } from "../lib/http/kernel/docs_response.ts";

export const handler = define.handlers({
  GET: (c) => docResponse(c, "help"),
});
