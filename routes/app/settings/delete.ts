/** `POST /app/settings/delete`: delete the account, confirmed by typing the username. */

import { define } from "../../../lib/http/define.ts";
import { htmlPage } from "../../../lib/http/pages.ts";
import { reopenSettings, submitDeleteAccount } from "../../../lib/http/web_settings.tsx";

export const handler = define.handlers({
  GET: reopenSettings("delete-account"),
  POST: htmlPage(submitDeleteAccount),
});
