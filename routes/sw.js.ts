/** `GET /sw.js`: the service worker (static/sw.js; lib/http/kernel/static_files.ts says why at the root). */

import { define } from "../lib/http/kernel/define.ts";
import { serviceWorkerResponse } from "../lib/http/kernel/static_files.ts";

export const handler = define.handlers({
  GET: (c) => serviceWorkerResponse(c),
});
