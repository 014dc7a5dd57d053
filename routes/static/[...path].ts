/** `GET /static/<path>`: stylesheets, island bundles, icons. */

import { define } from "../../lib/http/define.ts";
import { staticResponse } from "../../lib/http/static_files.ts";

export const handler = define.handlers({
  GET: (c) => staticResponse(c, c.req.param("path") ?? ""),
});
