/**
 * `GET/POST /forgot-password` (issue #24): asks for the verified address and runs the `/api/auth`
 * `requestPasswordReset` action (its `auth` quota per client IP, and its own `password-reset`
 * quota per address). The answer is one sentence whatever the address: whether an account has it
 * is never shown (OWASP Forgot Password Cheat Sheet). Without `SMTP_URL` the page says that the
 * operator resets passwords.
 */

import { z } from "zod";
import { ForgotPasswordPage } from "../components/PasswordResetPages.tsx";
import { preSessionToken, verifyFormPost } from "../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../lib/http/kernel/define.ts";
import { runPageAction } from "../lib/http/web/page_actions.ts";
import { readForm } from "../lib/http/web/page_forms.ts";
import { htmlPage, pageResponse } from "../lib/http/web/pages.ts";
import { fieldErrors } from "../lib/webapp/form_errors.ts";
import { typedAddress } from "../lib/webapp/email.ts";

/** The page, with what was typed, its error or the answer when given. */
function render(
  c: AppContext,
  extra: { email?: string; errors?: Record<string, string>; sent?: string },
  status = 200,
) {
  const page = (
    <ForgotPasswordPage
      csrfToken={preSessionToken(c)}
      mailConfigured={c.var.deps.config.smtp !== null}
      {...extra}
    />
  );
  return pageResponse(c, page, { status });
}

/** `POST`: one answer for every well-formed address. */
async function requestReset(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  verifyFormPost(c, form);
  if (c.var.deps.config.smtp === null) return render(c, {});
  const email = typedAddress(form);
  try {
    const answer = await runPageAction(c, null, "auth.requestPasswordReset", { email });
    return render(c, { sent: (answer as { message: string }).message });
  } catch (err) {
    if (!(err instanceof z.ZodError)) throw err;
    return render(c, { email, errors: fieldErrors(err) as Record<string, string> }, 400);
  }
}

export const handler = define.handlers({
  GET: htmlPage((c) => render(c, {})),
  POST: htmlPage(requestReset),
});
