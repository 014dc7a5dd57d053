/** `GET/POST /app`: Today — log the member's day (lib/http/today_page.tsx). */

import { define } from "../../lib/http/define.ts";
import { htmlPage } from "../../lib/http/pages.ts";
import { showToday, submitToday } from "../../lib/http/today_page.tsx";

export const handler = define.handlers({
  GET: htmlPage(showToday),
  POST: htmlPage(submitToday),
});
