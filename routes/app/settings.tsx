/**
 * `GET /app/settings`: profile, API tokens, connected apps, export, import, password, account.
 * Its forms post to routes/app/settings/*; what they share is routes/app/settings/_settings_page.tsx.
 */

import { requirePageMember } from "../../lib/http/web/browser_session.ts";
import { define } from "../../lib/http/kernel/define.ts";
import { htmlPage } from "../../lib/http/web/pages.ts";
import { settingsPage } from "./settings/_settings_page.tsx";

export const handler = define.handlers({
  GET: htmlPage(async (c) => await settingsPage(c, await requirePageMember(c))),
});
