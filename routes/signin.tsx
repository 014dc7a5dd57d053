/** `GET/POST /signin`: sign in in the browser (lib/http/web_auth.tsx). */

import { define } from "../lib/http/define.ts";
import { htmlPage } from "../lib/http/pages.ts";
import { showAuthPage, submitAuthPage } from "../lib/http/web_auth.tsx";

export const handler = define.handlers({
  GET: htmlPage((c) => showAuthPage(c, "signin")),
  POST: htmlPage((c) => submitAuthPage(c, "signin")),
});
