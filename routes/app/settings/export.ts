/** `GET /app/settings/export?format=csv|json`: the whole record as a download (exportRecord). */

import { define } from "../../../lib/http/define.ts";
import { htmlPage } from "../../../lib/http/pages.ts";
import { downloadExport } from "../../../lib/http/web_settings.tsx";

export const handler = define.handlers({ GET: htmlPage(downloadExport) });
