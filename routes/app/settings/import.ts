/** `POST /app/settings/import`: upload → preview → confirm → one commit (importRecord). */

import { define } from "../../../lib/http/define.ts";
import { htmlPage } from "../../../lib/http/pages.ts";
import { reopenSettings, submitImport } from "../../../lib/http/web_settings.tsx";

export const handler = define.handlers({
  GET: reopenSettings("import"),
  POST: htmlPage(submitImport),
});
