/**
 * Sign up and sign in (`/signup`, `/signin`). Both post to themselves and work without
 * JavaScript; errors appear beside the field. The OAuth sign-in screen (lib/http/oauth/oauth_pages.tsx)
 * uses the same fields and look.
 */

import { CsrfField, ErrorSummary, Field, type FieldErrors } from "./form.tsx";
import { PublicShell } from "./PublicShell.tsx";

/** Props shared by both pages. */
export interface AuthPageProps {
  csrfToken: string;
  /** Where to go afterwards (already checked to be a same-site path). */
  next: string;
  username?: string;
  errors?: FieldErrors;
  /** A message carried over a redirect (e.g. "You are signed out."). */
  flash?: string | null;
  /** What a username may be, in words (from the account schema). */
  usernameRule: string;
  /** The shortest password accepted (from the account schema). */
  passwordMin: number;
  /** Whether the service sends e-mail (`SMTP_URL`): a forgotten password is reset by a link. */
  mailConfigured?: boolean;
  /** Sign-up: the IANA zone names offered, and the zone typed (kept after an error). */
  timeZones?: string[];
  timezone?: string;
}

/**
 * Sign-up's time zone (issue #25, defect 3: without JavaScript the account was silently UTC). A
 * visible field, as in Settings: static/tz.js puts this device's zone in it while it still holds
 * the server's default (`data-fill-zone`); without JavaScript the member sees UTC and can type
 * theirs. A zone that is no IANA name is refused beside the field by the account schema.
 */
function TimeZoneField(p: { timezone?: string; zones: string[]; error?: string }) {
  return (
    <>
      <Field
        name="timezone"
        label="Time zone"
        value={p.timezone ?? DEFAULT_SIGN_UP_ZONE}
        data-fill-zone={p.timezone === undefined ? "" : undefined}
        list="sign-up-zones"
        autocomplete="off"
        autocapitalize="none"
        spellcheck={false}
        maxLength={64}
        required
        error={p.error}
        hint={
          <>
            Your day ends at midnight here. An IANA name such as <code>America/New_York</code>;{" "}
            change it later in Settings.
          </>
        }
      />
      <datalist id="sign-up-zones">
        {p.zones.map((z) => <option key={z} value={z} />)}
      </datalist>
    </>
  );
}

/** The zone sign-up offers before JavaScript (or the member) names one. */
export const DEFAULT_SIGN_UP_ZONE = "UTC";

/** The username and password fields. */
export function CredentialFields(
  p: {
    username?: string;
    errors?: FieldErrors;
    newPassword: boolean;
    usernameRule?: string;
    passwordMin?: number;
  },
) {
  return (
    <>
      <Field
        name="username"
        label="Username"
        autocomplete="username"
        autocapitalize="none"
        spellcheck={false}
        required
        maxLength={64}
        value={p.username ?? ""}
        hint={p.newPassword ? p.usernameRule : undefined}
        error={p.errors?.username}
      />
      <Field
        name="password"
        type="password"
        label="Password"
        autocomplete={p.newPassword ? "new-password" : "current-password"}
        required
        minLength={p.newPassword ? p.passwordMin : undefined}
        maxLength={256}
        hint={p.newPassword
          ? `At least ${p.passwordMin} characters; a passphrase is best.`
          : undefined}
        error={p.errors?.password}
      />
    </>
  );
}

function nextQuery(next: string): string {
  return next === "/app" ? "" : `?next=${encodeURIComponent(next)}`;
}

/** `/signup`. */
export function SignUpPage(p: AuthPageProps) {
  return (
    <PublicShell title="Create account">
      <div class="auth-card">
        <form class="card" method="post" action={`/signup${nextQuery(p.next)}`} novalidate>
          <h1>Create your account</h1>
          <p class="muted">
            Free: log your days, see your streaks and charts, and connect the apps and agents you
            choose.
          </p>
          <ErrorSummary errors={p.errors ?? {}} />
          <CsrfField token={p.csrfToken} />
          <CredentialFields
            username={p.username}
            errors={p.errors}
            newPassword
            usernameRule={p.usernameRule}
            passwordMin={p.passwordMin}
          />
          <TimeZoneField
            timezone={p.timezone}
            zones={p.timeZones ?? []}
            error={p.errors?.timezone}
          />
          <div class="actions">
            <button type="submit" class="primary">Create account</button>
          </div>
        </form>
        <p>
          Already have an account? <a href={`/signin${nextQuery(p.next)}`}>Sign in</a>
        </p>
      </div>
      <script src="/static/tz.js" defer></script>
    </PublicShell>
  );
}

/** `/signin`. */
export function SignInPage(p: AuthPageProps) {
  return (
    <PublicShell title="Sign in">
      <div class="auth-card">
        {p.flash ? <div class="notice success" role="status">{p.flash}</div> : null}
        <form class="card" method="post" action={`/signin${nextQuery(p.next)}`} novalidate>
          <h1>Sign in</h1>
          <ErrorSummary errors={p.errors ?? {}} />
          <CsrfField token={p.csrfToken} />
          <CredentialFields username={p.username} errors={p.errors} newPassword={false} />
          <div class="actions">
            <button type="submit" class="primary">Sign in</button>
          </div>
          {p.mailConfigured
            ? (
              <p>
                <a href="/forgot-password">Forgot password?</a>
              </p>
            )
            : (
              <p class="hint">
                Forgot your password? The operator of this service resets passwords{" "}
                (<code>deno task admin reset-password</code>). <a href="/forgot-password">How</a>
              </p>
            )}
        </form>
        <p>
          New here? <a href={`/signup${nextQuery(p.next)}`}>Create account</a>
        </p>
      </div>
    </PublicShell>
  );
}
