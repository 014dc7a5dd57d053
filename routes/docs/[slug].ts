/** `GET /docs/<slug>` (HTML, or Markdown on `Accept: text/markdown`) and `/docs/<slug>.md`. */

import { AppError } from "../../lib/foundation/errors.ts";
import { define } from "../../lib/http/kernel/define.ts";
import { docResponse } from "../../lib/http/kernel/docs_response.ts";

const SLUG = /^[a-z0-9-]{1,64}(\.md)?$/;

export const handler = define.handlers({
  GET(c) {
    const slug = c.req.param("slug") ?? "";
    if (!SLUG.test(slug)) throw new AppError("not_found", `No documentation page "${slug}".`);
    return slug.endsWith(".md") ? docResponse(c, slug.slice(0, -3), true) : docResponse(c, slug);
  },
});
