/**
 * `POST /app/settings/password`: the `/api/auth` `changePassword` action (its `auth` quota per
 * client IP, as password guesses: OWASP brute-force advice); this session stays, every other one
 * is signed out.
 */

import { AppError } from "../../../lib/foundation/errors.ts";
import { redirectTo } from "../../../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../../../lib/http/kernel/define.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { readForm } from "../../../lib/http/web/page_forms.ts";
import { htmlPage } from "../../../lib/http/web/pages.ts";
import { type FormErrors, passwordChangeOf } from "../../../lib/webapp/settings.ts";
import { postedBy, reopenSettings, settingsPage } from "./_settings_page.tsx";

/** Changes the password, or the page again with the error beside its field. */
async function submitPassword(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  const page = await postedBy(c, form);
  const failed = (errors: FormErrors) => {
    const values = { endTokensAndApps: form.endTokensAndApps === "on" ? "on" : "" };
    return settingsPage(c, page, { failed: { form: "password", errors, values } }, 422);
  };
  const change = passwordChangeOf(form);
  if ("errors" in change) return await failed(change.errors);
  try {
    await runPageAction(c, page, "auth.changePassword", change.input);
  } catch (err) {
    if (err instanceof AppError && err.code === "invalid_credentials") {
      return await failed({ currentPassword: "That is not your current password." });
    }
    throw err;
  }
  const ended = form.endTokensAndApps === "on"
    ? "Every other device is signed out, and every API token and connected app is ended."
    : "Every other device is signed out; API tokens and connected apps still work.";
  return redirectTo(c, "/app/settings#password", `Password changed. ${ended}`);
}

export const handler = define.handlers({
  GET: reopenSettings("password"),
  POST: htmlPage(submitPassword),
});
