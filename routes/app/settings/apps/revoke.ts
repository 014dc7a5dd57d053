/** `POST /app/settings/apps/revoke`: revoke a connected app's grant (a confirm page first without JS). */

import { define } from "../../../../lib/http/kernel/define.ts";
import { htmlPage } from "../../../../lib/http/web/pages.ts";
import { reopenSettings } from "../_settings_page.tsx";
import { submitRevoke } from "../_revoke.tsx";

export const handler = define.handlers({
  GET: reopenSettings("connected-apps"),
  POST: htmlPage(submitRevoke("app")),
});
