/** `GET /app/settings`: profile, API tokens, connected apps, export, import, password, account. */

import { define } from "../../lib/http/define.ts";
import { htmlPage } from "../../lib/http/pages.ts";
import { showSettings } from "../../lib/http/web_settings.tsx";

export const handler = define.handlers({ GET: htmlPage(showSettings) });
