/**
 * `POST /app/settings/preferences`: theme, first day of the week, how dates are written, units of
 * new columns (issue #25), saved by `updateProfile` — the action `/api/proxy` runs.
 */

import { redirectTo } from "../../../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../../../lib/http/kernel/define.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { readForm } from "../../../lib/http/web/page_forms.ts";
import { htmlPage } from "../../../lib/http/web/pages.ts";
import { fieldErrors, PreferencesForm } from "../../../lib/webapp/settings.ts";
import { postedBy, reopenSettings, settingsPage } from "./_settings_page.tsx";

/** Saves the preferences, or the page again with the errors beside the fields. */
async function submitPreferences(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  const page = await postedBy(c, form);
  const parsed = PreferencesForm.safeParse(form);
  if (!parsed.success) {
    const failed = {
      form: "preferences" as const,
      errors: fieldErrors(parsed.error),
      values: form,
    };
    return await settingsPage(c, page, { failed }, 422);
  }
  await runPageAction(c, page, "proxy.updateProfile", parsed.data);
  return redirectTo(c, "/app/settings#preferences", "Preferences saved.");
}

export const handler = define.handlers({
  GET: reopenSettings("preferences"),
  POST: htmlPage(submitPreferences),
});
