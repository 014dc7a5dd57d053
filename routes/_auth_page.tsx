/**
 * What `/signin` and `/signup` share (a `_` file: private to routes/, not a route): the form page,
 * its GET, and the signed-in ending — the session cookie, then a 303 to the same-site `next`
 * (e.g. the OAuth consent screen). Login CSRF protection: `verifyFormPost` with the pre-session
 * form token (OWASP "Login CSRF").
 */

import { type AuthPageProps, SignInPage, SignUpPage } from "../components/AuthPages.tsx";
import {
  optionalPageMember,
  preSessionToken,
  redirectTo,
  safeNext,
  startBrowserSession,
  takeFlash,
} from "../lib/http/web/browser_session.ts";
import type { AppContext } from "../lib/http/kernel/define.ts";
import { pageResponse } from "../lib/http/web/pages.ts";
import { PASSWORD_MIN, signUpTimeZones, USERNAME_RULE } from "../lib/webapp/sign_in.ts";

export type AuthMode = "signup" | "signin";

/** The sign-in or sign-up form, with what was typed and its errors when given. */
export function renderAuthPage(
  c: AppContext,
  mode: AuthMode,
  extra: Partial<AuthPageProps>,
  status = 200,
): Response {
  const props: AuthPageProps = {
    csrfToken: preSessionToken(c),
    next: safeNext(c.req.query("next")),
    usernameRule: USERNAME_RULE,
    passwordMin: PASSWORD_MIN,
    mailConfigured: c.var.deps.config.smtp !== null,
    ...(mode === "signup" ? { timeZones: signUpTimeZones() } : {}),
    ...extra,
  };
  const page = mode === "signup" ? <SignUpPage {...props} /> : <SignInPage {...props} />;
  return pageResponse(c, page, { status });
}

/** `GET`: the form, or straight on to `next` when already signed in. */
export async function showAuthPage(c: AppContext, mode: AuthMode): Promise<Response> {
  if (await optionalPageMember(c)) return redirectTo(c, safeNext(c.req.query("next")));
  return renderAuthPage(c, mode, { flash: takeFlash(c) });
}

/** The end of a successful sign-in or sign-up: the cookie, then a 303 to `next`. */
export function signedIn(c: AppContext, result: unknown): Response {
  startBrowserSession(c, result as { sessionToken: string });
  return redirectTo(c, safeNext(c.req.query("next")));
}
