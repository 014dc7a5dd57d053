/** `GET /static/<path>`: stylesheets, island bundles, icons. */

import { define } from "../../lib/http/kernel/define.ts";
import { staticResponse } from "../../lib/http/kernel/static_files.ts";

export const handler = define.handlers({
  GET: (c) => staticResponse(c, c.req.param("path") ?? ""),
});
