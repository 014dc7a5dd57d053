/** `POST /app/settings/profile`: display name, time zone, day-start hour, units. */

import { define } from "../../../lib/http/define.ts";
import { htmlPage } from "../../../lib/http/pages.ts";
import { reopenSettings, submitProfile } from "../../../lib/http/web_settings.tsx";

export const handler = define.handlers({
  GET: reopenSettings("profile"),
  POST: htmlPage(submitProfile),
});
