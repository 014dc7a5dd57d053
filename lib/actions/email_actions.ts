/**
 * The e-mail actions of `/api/auth` (issue #24): add and verify an address, and reset a forgotten
 * password by a mailed link. The links are minted and consumed by lib/accounts/email.ts; this
 * module words the messages and sends them (lib/notify/mail.ts). Without `SMTP_URL` the actions
 * that mail answer `email_not_configured`, and the pages say that the operator resets passwords.
 */

import { AppError } from "../foundation/errors.ts";
import { hashSecret } from "../foundation/secrets.ts";
import { logEvent } from "../foundation/log.ts";
import {
  RESET_LINK_MS,
  resetPasswordWithLink,
  startAddressChange,
  startPasswordReset,
  verifyAddress,
} from "../accounts/email.ts";
import { getMember } from "../accounts/accounts.ts";
import { type Mailer, sendMail } from "../notify/mail.ts";
import type { ActionContext } from "./action_table.ts";

/** The one answer of a reset request, whether or not an account has the address. */
export const RESET_REQUESTED =
  "If an account has this verified address, a link to choose a new password is on its way. " +
  `It works once, for ${RESET_LINK_MS / 60_000} minutes.`;

/** The mailer, or `email_not_configured` when the operator has not configured SMTP. */
function mailerOf(ctx: ActionContext): Mailer {
  if (!ctx.mailer) {
    throw new AppError(
      "email_not_configured",
      "This service sends no e-mail (SMTP_URL is not set). The operator resets passwords: " +
        "deno task admin reset-password <username>.",
    );
  }
  return ctx.mailer;
}

/** An absolute link to `path` with `token` in its query. */
function linkTo(ctx: ActionContext, path: string, token: string): string {
  return `${ctx.baseUrl ?? ""}${path}?token=${encodeURIComponent(token)}`;
}

/** `setEmail`: records the address as pending and mails its verification link. */
export async function setEmail(ctx: ActionContext, memberId: string, email: string) {
  const mailer = mailerOf(ctx);
  const secret = await startAddressChange(ctx.kv, ctx.clock, memberId, email);
  const member = await getMember(ctx.kv, memberId);
  const sent = await sendMail(mailer, {
    to: email,
    subject: "Confirm your e-mail address for Routine Tracker",
    text: `Hello ${member.displayName},\n\nTo use this address for password resets and ` +
      `reminders, open this link within 24 hours:\n\n${linkTo(ctx, "/verify-email", secret)}\n\n` +
      "If you did not ask for this, ignore this message: nothing changes.\n",
  });
  if (!sent) {
    throw new AppError("service_busy", "The mail server did not take the message. Try again.");
  }
  return { email: member.email ?? null, pending: email };
}

/** `verifyEmail`. */
export async function verifyEmail(ctx: ActionContext, token: string) {
  return { verified: true as const, email: await verifyAddress(ctx.kv, ctx.clock, token) };
}

/**
 * `requestPasswordReset`: counts the request under the `password-reset` quota of the address
 * (known or not, so a refusal tells nothing), mints a link if an account has the address, and
 * queues the message without awaiting it: the answer and its timing do not depend on whether
 * there was anything to send (OWASP Forgot Password Cheat Sheet, "consistent response time").
 */
export async function requestPasswordReset(ctx: ActionContext, email: string) {
  const mailer = mailerOf(ctx);
  // hashed: the KV keeps no address someone typed (lib/accounts/password_guesses.ts, the same)
  await ctx.limit?.("password-reset", `e-${hashSecret(email.toLowerCase()).slice(0, 32)}`);
  const reset = await startPasswordReset(ctx.kv, ctx.clock, email);
  if (reset) {
    const text = "Someone (we hope you) asked to reset the password of your Routine Tracker " +
      `account. To choose a new one, open this link within ${RESET_LINK_MS / 60_000} ` +
      `minutes; it works once:\n\n${linkTo(ctx, "/reset-password", reset.secret)}\n\n` +
      "Setting a new password signs out every device. If you did not ask, ignore this message: " +
      "your password stays as it is.\n";
    sendMail(mailer, { to: reset.address, subject: "Reset your Routine Tracker password", text })
      .then((ok) => ok || logEvent("warn", "password reset: mail not sent", {}));
  }
  return { accepted: true as const, message: RESET_REQUESTED };
}

/** `resetPassword`: a new password from a reset link; every session ends. */
export async function resetPassword(
  ctx: ActionContext,
  body: { token: string; newPassword: string; endTokensAndApps: boolean },
) {
  await resetPasswordWithLink(ctx.kv, ctx.clock, {
    secret: body.token,
    newPassword: body.newPassword,
    iterations: ctx.passwordIterations,
    endTokensAndApps: body.endTokensAndApps,
  });
  return {
    passwordReset: true as const,
    sessionsSignedOut: true as const,
    tokensAndAppsEnded: body.endTokensAndApps,
  };
}
