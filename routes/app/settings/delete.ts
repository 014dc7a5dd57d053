/**
 * `POST /app/settings/delete`: delete the account, confirmed by typing the username — the
 * `/api/auth` `deleteAccount` action under its `auth` quota — then signed out, to the landing page.
 */

import { endBrowserSession, redirectTo } from "../../../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../../../lib/http/kernel/define.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { readForm } from "../../../lib/http/web/page_forms.ts";
import { htmlPage } from "../../../lib/http/web/pages.ts";
import { deleteConfirmationOf } from "../../../lib/webapp/settings.ts";
import { postedBy, reopenSettings, settingsPage } from "./_settings_page.tsx";

/** Deletes the account, or the page again with the typed name kept and the error beside it. */
async function submitDeleteAccount(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  const page = await postedBy(c, form);
  const confirmation = deleteConfirmationOf(form, page.member.username);
  if ("errors" in confirmation) {
    const failed = { form: "delete" as const, errors: confirmation.errors, values: form };
    return await settingsPage(c, page, { failed }, 422);
  }
  await runPageAction(c, page, "auth.deleteAccount", confirmation.input);
  await endBrowserSession(c);
  return redirectTo(c, "/", "Your account and everything in it were deleted.");
}

export const handler = define.handlers({
  GET: reopenSettings("delete-account"),
  POST: htmlPage(submitDeleteAccount),
});
