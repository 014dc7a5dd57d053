/** `GET/POST /app/columns`: the member's columns (lib/http/columns_page.tsx). */

import { showColumns, submitColumns } from "../../lib/http/columns_page.tsx";
import { define } from "../../lib/http/define.ts";
import { htmlPage } from "../../lib/http/pages.ts";

export const handler = define.handlers({
  GET: htmlPage(showColumns),
  POST: htmlPage(submitColumns),
});
