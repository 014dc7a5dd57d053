/**
 * `GET/POST /reset-password?token=…` (issue #24): the page a reset link opens. The GET only shows
 * the form (a mail scanner that fetches the link spends nothing); the POST runs the `/api/auth`
 * `resetPassword` action, which uses the link once, sets the password and ends every session —
 * then on to sign in. The token travels in a hidden field, and the page sends no `Referer` beyond
 * the site (lib/http/kernel/security_headers.ts), so it does not leak to other sites.
 */

import { z } from "zod";
import { ResetPasswordPage } from "../components/PasswordResetPages.tsx";
import { preSessionToken, redirectTo, verifyFormPost } from "../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../lib/http/kernel/define.ts";
import { runPageAction } from "../lib/http/web/page_actions.ts";
import { readForm } from "../lib/http/web/page_forms.ts";
import { htmlPage, pageResponse } from "../lib/http/web/pages.ts";
import { AppError } from "../lib/foundation/errors.ts";
import { fieldErrors } from "../lib/webapp/form_errors.ts";
import { resetInputOf } from "../lib/webapp/email.ts";
import { PASSWORD_MIN } from "../lib/webapp/sign_in.ts";

/** The form for `token`, with errors when given. */
function render(
  c: AppContext,
  token: string,
  extra: { errors?: Record<string, string>; endTokensAndApps?: boolean } = {},
  status = 200,
) {
  const page = (
    <ResetPasswordPage
      csrfToken={preSessionToken(c)}
      token={token}
      passwordMin={PASSWORD_MIN}
      {...extra}
    />
  );
  return pageResponse(c, page, { status });
}

/** `POST`: the new password, then sign in; or the form with its error. */
async function reset(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  verifyFormPost(c, form);
  const input = resetInputOf(form);
  const again = (errors: Record<string, string>, status: number) =>
    render(c, input.token, { errors, endTokensAndApps: input.endTokensAndApps }, status);
  try {
    await runPageAction(c, null, "auth.resetPassword", input);
  } catch (err) {
    if (err instanceof z.ZodError) return again(fieldErrors(err) as Record<string, string>, 400);
    if (err instanceof AppError && err.code === "invalid_link") {
      return again({ _form: err.message }, 400);
    }
    throw err;
  }
  const ended = input.endTokensAndApps ? " Every API token and connected app is ended too." : "";
  return redirectTo(
    c,
    "/signin",
    `Password changed. Every device is signed out; sign in with the new password.${ended}`,
  );
}

export const handler = define.handlers({
  GET: htmlPage((c) => render(c, (c.req.query("token") ?? "").slice(0, 200))),
  POST: htmlPage(reset),
});
