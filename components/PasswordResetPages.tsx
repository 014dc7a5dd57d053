/**
 * The signed-out pages of the e-mail flows (issue #24): `/forgot-password` asks for the address,
 * `/reset-password` sets a new password from the mailed link, `/verify-email` tells how opening a
 * verification link went. Plain POST forms: they work without JavaScript.
 */

import { Button, CsrfField, ErrorSummary, Field, type FieldErrors, Notice } from "./form.tsx";
import { PublicShell } from "./PublicShell.tsx";

/** What the operator runs to reset a password when the service sends no mail. */
export const OPERATOR_RESET = "deno task admin reset-password";

/** Said wherever a reset is offered and the service sends no mail. */
export function OperatorResets() {
  return (
    <>
      This service sends no e-mail, so its operator resets passwords: ask them to run{" "}
      <code>{OPERATOR_RESET}</code>{" "}
      for your username, then sign in with the password they give you and change it in Settings.
    </>
  );
}

/** Props of `ForgotPasswordPage`. */
export interface ForgotPasswordProps {
  csrfToken: string;
  mailConfigured: boolean;
  email?: string;
  errors?: FieldErrors;
  /** The answer after a request: the same whether or not an account has the address. */
  sent?: string;
}

/** `/forgot-password`. */
export function ForgotPasswordPage(p: ForgotPasswordProps) {
  return (
    <PublicShell title="Forgot password">
      <div class="auth-card">
        <div class="card">
          <h1>Forgot your password?</h1>
          {!p.mailConfigured
            ? (
              <p>
                <OperatorResets />
              </p>
            )
            : p.sent
            ? <Notice kind="success">{p.sent}</Notice>
            : (
              <form method="post" action="/forgot-password" novalidate>
                <p>
                  Enter the e-mail address you verified in Settings. We send a link to choose a new
                  password.
                </p>
                <ErrorSummary errors={p.errors ?? {}} />
                <CsrfField token={p.csrfToken} />
                <Field
                  name="email"
                  type="email"
                  label="E-mail address"
                  autocomplete="email"
                  autocapitalize="none"
                  spellcheck={false}
                  maxLength={254}
                  value={p.email ?? ""}
                  error={p.errors?.email}
                  required
                />
                <div class="actions">
                  <Button variant="primary">Send reset link</Button>
                </div>
              </form>
            )}
        </div>
        <p>
          Remembered it? <a href="/signin">Sign in</a>
        </p>
      </div>
    </PublicShell>
  );
}

/** Props of `ResetPasswordPage`. */
export interface ResetPasswordProps {
  csrfToken: string;
  /** The link's secret, carried in a hidden field. */
  token: string;
  passwordMin: number;
  errors?: FieldErrors;
  endTokensAndApps?: boolean;
}

/** `/reset-password?token=…`. */
export function ResetPasswordPage(p: ResetPasswordProps) {
  return (
    <PublicShell title="Choose a new password">
      <div class="auth-card">
        <form class="card" method="post" action="/reset-password" novalidate>
          <h1>Choose a new password</h1>
          <ErrorSummary errors={p.errors ?? {}} />
          <CsrfField token={p.csrfToken} />
          <input type="hidden" name="token" value={p.token} />
          <Field
            name="newPassword"
            type="password"
            label="New password"
            autocomplete="new-password"
            minLength={p.passwordMin}
            maxLength={256}
            hint={`At least ${p.passwordMin} characters; a passphrase is best. Every device is signed out.`}
            error={p.errors?.newPassword}
            required
          />
          <label class="check">
            <input
              type="checkbox"
              name="endTokensAndApps"
              value="on"
              checked={p.endTokensAndApps ?? true}
            />
            Also end every API token and connected app
          </label>
          <div class="actions">
            <Button variant="primary">Set new password</Button>
          </div>
        </form>
        <p>
          Link expired? <a href="/forgot-password">Ask for a new one</a>
        </p>
      </div>
    </PublicShell>
  );
}

/** `/verify-email?token=…`: the outcome of opening a verification link. */
export function VerifyEmailPage(p: { email?: string; error?: string }) {
  return (
    <PublicShell title={p.email ? "Address verified" : "Link not valid"}>
      <div class="auth-card">
        <div class="card">
          <h1>{p.email ? "Address verified" : "This link does not work"}</h1>
          {p.email
            ? (
              <Notice kind="success">
                <strong>{p.email}</strong>{" "}
                is now your address for password resets and e-mail reminders.
              </Notice>
            )
            : <Notice kind="error">{p.error}</Notice>}
          <p>
            <a href="/app/settings#email">Go to Settings</a>
          </p>
        </div>
      </div>
    </PublicShell>
  );
}
