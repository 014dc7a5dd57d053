/**
 * `GET /verify-email?token=…` (issue #24): opening the link mailed to a new address verifies it
 * (the `/api/auth` `verifyEmail` action: the link works once, for 24 hours). A GET that changes
 * state, deliberately: proving the mailbox received the link is the whole point, and a scanner
 * that opens it first can only verify the address for the member who asked — never change a
 * password (that link, `/reset-password`, acts only on a POST).
 */

import { VerifyEmailPage } from "../components/PasswordResetPages.tsx";
import { type AppContext, define } from "../lib/http/kernel/define.ts";
import { runPageAction } from "../lib/http/web/page_actions.ts";
import { htmlPage, pageResponse } from "../lib/http/web/pages.ts";
import { AppError } from "../lib/foundation/errors.ts";

/** Verifies the link's address and says so, or says why not. */
async function verify(c: AppContext): Promise<Response> {
  const token = (c.req.query("token") ?? "").slice(0, 200);
  try {
    const result = await runPageAction(c, null, "auth.verifyEmail", { token });
    return pageResponse(c, <VerifyEmailPage email={(result as { email: string }).email} />);
  } catch (err) {
    const known = err instanceof AppError &&
      (err.code === "invalid_link" || err.code === "invalid_request");
    if (!known) throw err;
    return pageResponse(c, <VerifyEmailPage error={err.message} />, { status: 400 });
  }
}

export const handler = define.handlers({ GET: htmlPage(verify) });
