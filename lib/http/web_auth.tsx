/**
 * The browser's sign up and sign in (`/signup`, `/signin`; DESIGN §7, §14): the same account
 * functions as `POST /api/auth` register/login, the same `auth` rate-limit policy, the session in
 * the HttpOnly cookie, login-CSRF protection, and a same-site `next` to return to (e.g. the OAuth
 * consent screen).
 */

import { loginMember, Password, registerMember, Username } from "../accounts/accounts.ts";
import { AppError } from "../foundation/errors.ts";
import { TimeZone } from "../foundation/dates.ts";
import { type AuthPageProps, SignInPage, SignUpPage } from "../../components/AuthPages.tsx";
import type { FieldErrors } from "../../components/form.tsx";
import type { AppContext } from "./define.ts";
import { accountContextOf } from "./deps.ts";
import {
  optionalPageMember,
  preSessionToken,
  redirectTo,
  safeNext,
  startBrowserSession,
  takeFlash,
  verifyFormPost,
} from "./browser_session.ts";
import { readForm } from "./page_forms.ts";
import { pageResponse } from "./pages.ts";
import { enforceRateLimit, passwordGuessesOf } from "./rate_limit.ts";

type Mode = "signup" | "signin";

/** What a username may be, in the schema's own words (no number restated here). */
const USERNAME_RULE = (Username.safeParse("").error?.issues[0].message ?? "")
  .replace(/^Username:\s*/, "").replace(/^./, (ch) => ch.toUpperCase());
const PASSWORD_MIN = Password.minLength ?? 8;

function render(c: AppContext, mode: Mode, extra: Partial<AuthPageProps>, status = 200) {
  const props: AuthPageProps = {
    csrfToken: preSessionToken(c),
    next: safeNext(c.req.query("next")),
    usernameRule: USERNAME_RULE,
    passwordMin: PASSWORD_MIN,
    ...extra,
  };
  const page = mode === "signup" ? <SignUpPage {...props} /> : <SignInPage {...props} />;
  return pageResponse(c, page, { status });
}

/** `GET`: the form, or straight on to `next` when already signed in. */
export async function showAuthPage(c: AppContext, mode: Mode): Promise<Response> {
  if (await optionalPageMember(c)) return redirectTo(c, safeNext(c.req.query("next")));
  return render(c, mode, { flash: takeFlash(c) });
}

/** Field errors of a sign-up form, by the account schemas. */
function signUpErrors(username: string, password: string): FieldErrors {
  const u = Username.safeParse(username);
  const p = Password.safeParse(password);
  return {
    username: u.success ? undefined : u.error.issues[0].message,
    password: p.success ? undefined : p.error.issues[0].message,
  };
}

/** `POST`: create the account or sign in, set the cookie, 303 to `next`; or the form with errors. */
export async function submitAuthPage(c: AppContext, mode: Mode): Promise<Response> {
  // Counted before anything else, so failed guesses spend the quota too (DESIGN §6 `auth`).
  await enforceRateLimit(c, "auth", c.var.clientIp);
  const form = await readForm(c);
  verifyFormPost(c, form); // login CSRF (OWASP): a foreign site must not sign you in as itself
  const username = (form.username ?? "").trim().slice(0, 64);
  const password = (form.password ?? "").slice(0, 300);
  const accounts = accountContextOf(c.var.deps, passwordGuessesOf(c));
  try {
    let signedIn;
    if (mode === "signup") {
      const errors = signUpErrors(username, password);
      if (errors.username || errors.password) return render(c, mode, { username, errors }, 400);
      const zone = TimeZone.safeParse(form.timezone);
      signedIn = await registerMember(accounts, {
        username,
        password,
        timezone: zone.success ? zone.data : "UTC",
      });
    } else {
      signedIn = await loginMember(accounts, username, password);
    }
    startBrowserSession(c, signedIn);
    return redirectTo(c, safeNext(c.req.query("next")));
  } catch (err) {
    if (err instanceof AppError && err.code === "username_taken") {
      return render(c, mode, { username, errors: { username: err.message } }, 409);
    }
    if (err instanceof AppError && err.code === "invalid_credentials") {
      // One message for an unknown name and a wrong password (OWASP Authentication cheat sheet).
      return render(c, mode, { username, errors: { password: err.message } }, 401);
    }
    throw err;
  }
}
