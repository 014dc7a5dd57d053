/** `POST /app/settings/profile`: display name, time zone, day-start hour, units (`updateProfile`). */

import { z } from "zod";
import { redirectTo } from "../../../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../../../lib/http/kernel/define.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { readForm } from "../../../lib/http/web/page_forms.ts";
import { htmlPage } from "../../../lib/http/web/pages.ts";
import { fieldErrors, profileErrorsOf, ProfileForm } from "../../../lib/webapp/settings.ts";
import { postedBy, reopenSettings, settingsPage } from "./_settings_page.tsx";

/** Saves the profile, or the page again with the errors beside the fields. */
async function submitProfile(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  const page = await postedBy(c, form);
  const failed = (errors: Record<string, string>) =>
    settingsPage(c, page, { failed: { form: "profile", errors, values: form } }, 422);
  const parsed = ProfileForm.safeParse(form);
  if (!parsed.success) return await failed(fieldErrors(parsed.error));
  try {
    await runPageAction(c, page, "proxy.updateProfile", parsed.data);
  } catch (err) {
    if (err instanceof z.ZodError) return await failed(profileErrorsOf(err, parsed.data.timezone));
    throw err;
  }
  return redirectTo(c, "/app/settings#profile", "Profile saved.");
}

export const handler = define.handlers({
  GET: reopenSettings("profile"),
  POST: htmlPage(submitProfile),
});
