/**
 * The pages a person sees during authorization (Route B): sign-in, consent and the error page
 * shown instead of redirecting to an untrusted redirect URI. Every one is served with anti-framing
 * headers and a strict Content-Security-Policy (clickjacking: RFC 6749 §10.13, OAuth 2.1 §7.7).
 */

import { CredentialFields } from "../../../components/AuthPages.tsx";
import ConsentForm, { type ConsentFormProps } from "../../../islands/ConsentForm.tsx";
import { Layout, renderPage } from "../kernel/render.tsx";
import { htmlContentSecurityPolicy } from "../kernel/security_headers.ts";

/**
 * Headers of every authorization page. `form-action` limits where a form — and the redirect that
 * follows it — may go: this origin plus the client's redirect target, if known; `no-store` keeps
 * tokens in the page out of caches. The rest of the policy (`frame-ancestors 'none'`, `script-src
 * 'self'`) and `X-Frame-Options`, `Referrer-Policy: same-origin` (our own origin still goes with
 * the consent POST) and `nosniff` come from lib/http/kernel/security_headers.ts, as for every HTML page.
 */
export function authorizationPageHeaders(redirectTarget?: string): Record<string, string> {
  let formAction = "'self'";
  if (redirectTarget) {
    try {
      const url = new URL(redirectTarget);
      formAction += url.protocol === "http:" || url.protocol === "https:"
        ? ` ${url.origin}`
        : ` ${url.protocol}`;
    } catch {
      // an unparsable target adds nothing
    }
  }
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Security-Policy": htmlContentSecurityPolicy(formAction),
  };
}

/** Props of the sign-in page. */
export interface SignInPageProps {
  /** The authorization endpoint with the original query: the form posts back to it. */
  formAction: string;
  clientName: string | null;
  error?: string;
  username?: string;
}

/** Sign in (or create an account) to continue to the consent screen. */
export function renderSignInPage(p: SignInPageProps): string {
  const name = p.clientName ?? "An app";
  // The same fields and look as /signin and /signup (components/AuthPages.tsx); this form posts
  // back to the authorization request, so signing in returns straight to the consent screen.
  return renderPage(
    <Layout title="Sign in to continue" hideAccountLinks>
      <div class="auth-card">
        <form class="card" method="post" action={p.formAction} novalidate>
          <h1>Sign in to continue</h1>
          <p>
            <strong>{name}</strong>{" "}
            is asking to read your Routine Tracker record. Sign in first; you will then see exactly
            what it asks for and can approve or deny.
          </p>
          {p.error ? <p class="notice error" role="alert">{p.error}</p> : null}
          <CredentialFields username={p.username} newPassword={false} />
          <div class="actions">
            <button type="submit" name="action" value="sign_in" class="primary">Sign in</button>
            <button type="submit" name="action" value="sign_up">Create an account</button>
          </div>
        </form>
      </div>
    </Layout>,
  );
}

/** The consent screen: the island, server-rendered, with its props for hydration. */
export function renderConsentPage(props: ConsentFormProps): string {
  return renderPage(
    <Layout title="Allow access?" hideAccountLinks>
      <div data-island="ConsentForm" data-props={JSON.stringify(props)}>
        <ConsentForm {...props} />
      </div>
      <script type="module" src="/static/build/ConsentForm.js"></script>
    </Layout>,
  );
}

/** Props of the error page. */
export interface AuthorizationErrorPageProps {
  error: string;
  description: string;
}

/**
 * An authorization error that must not be sent to the redirect URI (unknown client, unregistered
 * redirect URI, stale consent form): shown to the person instead (RFC 6749 §4.1.2.1).
 */
export function renderAuthorizationErrorPage(p: AuthorizationErrorPageProps): string {
  return renderPage(
    <Layout title="This authorization request cannot continue" hideAccountLinks>
      <div class="card">
        <h1>This authorization request cannot continue</h1>
        <p role="alert">{p.description}</p>
        <p>
          Error code:{" "}
          <code>{p.error}</code>. Return to the app and start the connection again. If it keeps
          happening, the app may be misconfigured; its developer can read{" "}
          <a href="/docs/authentication">the authentication guide</a>.
        </p>
      </div>
    </Layout>,
  );
}
