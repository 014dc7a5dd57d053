/** `POST /app/settings/tokens`: create a read-only API token, shown in this response only. */

import { define } from "../../../lib/http/define.ts";
import { htmlPage } from "../../../lib/http/pages.ts";
import { reopenSettings, submitToken } from "../../../lib/http/web_settings.tsx";

export const handler = define.handlers({
  GET: reopenSettings("tokens"),
  POST: htmlPage(submitToken),
});
