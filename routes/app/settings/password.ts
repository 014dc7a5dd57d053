/** `POST /app/settings/password`: change the password; every other session is signed out. */

import { define } from "../../../lib/http/define.ts";
import { htmlPage } from "../../../lib/http/pages.ts";
import { reopenSettings, submitPassword } from "../../../lib/http/web_settings.tsx";

export const handler = define.handlers({
  GET: reopenSettings("password"),
  POST: htmlPage(submitPassword),
});
