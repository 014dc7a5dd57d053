/**
 * The browser session of the member web app (DESIGN §7, §14): who is signed in (the session
 * cookie, read only through `sessionFromCookie`), CSRF for cookie-authenticated form posts, safe
 * `next` redirects, and flash messages over Post/Redirect/Get. Forms are read in
 * lib/http/web/page_forms.ts; pages are rendered and their failures turned into HTML in
 * lib/http/web/pages.ts; a page's writes run in lib/http/web/page_actions.ts.
 */

import { createHash } from "node:crypto";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { findSession, logoutSession } from "../../accounts/accounts.ts";
import { newSecret, safeEqual } from "../../foundation/secrets.ts";
import { AppError } from "../../foundation/errors.ts";
import { type Profile, profileOf } from "../../record/store.ts";
import {
  pageSession,
  SESSION_COOKIE,
  sessionCookieOptions,
  sessionFromCookie,
} from "../kernel/auth.ts";
import type { AppContext } from "../kernel/define.ts";

/** Signed-out forms (sign in, sign up) get their form token from this cookie (login CSRF). */
export const PRESESSION_COOKIE = "rt_form";
/** A one-shot message carried over a 303 redirect. */
export const FLASH_COOKIE = "rt_flash";

/** The signed-in member of a page request. */
export interface PageMember {
  memberId: string;
  /**
   * The member's record version when read with the session (lib/record/member_access.ts), for
   * lib/record/member_records.ts `load`; unset on a session this instance had not seen.
   */
  recordVersion?: bigint;
  member: Profile;
  sessionToken: string;
  /** Session expiry (ms since the epoch): a page is the session caller of its actions. */
  expiresAt: number;
  /** The value of the hidden `csrf` field every POST form of the page carries. */
  csrfToken: string;
  /** The flash message of the redirect that led here, if any (consumed). */
  flash: string | null;
}

/**
 * Thrown by `requirePageMember` when no one is signed in: the page wrapper (`htmlPage`,
 * lib/http/web/pages.ts) answers it with a 303 to `location`, so a controller needs no preamble.
 * Not an `AppError`: it is the page's normal answer to a signed-out visit, not a failure.
 */
export class SignInRequired extends Error {
  constructor(readonly location: string) {
    super("sign in required");
    this.name = "SignInRequired";
  }
}

/**
 * The synchronizer token of a session (OWASP CSRF cheat sheet, "Synchronizer Token Pattern"):
 * derived from the session secret with a domain-separating prefix, so it is per session, needs no
 * storage, and cannot be computed without the HttpOnly cookie. It never appears in a URL.
 */
export function csrfTokenFor(secret: string): string {
  return createHash("sha256").update("routine-tracker form token\0" + secret).digest("base64url");
}

/**
 * What a `next` must not hold: a start of `//` or `/\`, or any backslash or control character
 * (browsers treat `\` like `/` and strip tabs and newlines, so `/\evil` and `/\t/evil` are
 * protocol-relative too; WHATWG URL "path state").
 */
// deno-lint-ignore no-control-regex -- control characters are exactly what is refused here
const UNSAFE_NEXT = /^\/[/\\]|[\\\x00-\x1f\x7f]/;

/**
 * `next` if it is a same-site relative path, else `fallback`. The test applies to the NORMALISED
 * path, the one sent in `Location`: WHATWG URL parsing removes dot segments (`/.//evil`,
 * `/a/..//evil`, `/%2e//evil` all become `//evil`, a network-path reference that RFC 3986 §4.2
 * resolves to another host), so testing the raw value alone was an open redirect (issue #19;
 * OWASP Unvalidated Redirects cheat sheet). An encoded slash or backslash in the path is refused
 * too (no page has one), in case anything on the way decodes it into `//`.
 */
export function safeNext(raw: string | null | undefined, fallback = "/app"): string {
  if (!raw || raw.length > 2000 || !raw.startsWith("/")) return fallback;
  if (UNSAFE_NEXT.test(raw)) return fallback;
  try {
    const base = "http://routine-tracker.invalid";
    const url = new URL(raw, base);
    if (url.origin !== base) return fallback;
    const path = url.pathname + url.search + url.hash;
    if (/%2f|%5c/i.test(url.pathname)) return fallback;
    return path.startsWith("/") && !UNSAFE_NEXT.test(path) ? path : fallback;
  } catch {
    return fallback;
  }
}

/** The sign-in page URL that returns to this request's path afterwards. */
export function signInUrlFor(c: AppContext): string {
  const url = new URL(c.req.url);
  return `/signin?next=${encodeURIComponent(url.pathname + url.search)}`;
}

/** A 303 See Other (Post/Redirect/Get), optionally leaving a flash message for the next page. */
export function redirectTo(c: AppContext, location: string, flash?: string): Response {
  if (flash) {
    setCookie(c, FLASH_COOKIE, encodeURIComponent(flash.slice(0, 300)), {
      httpOnly: true,
      sameSite: "Lax",
      secure: c.var.deps.config.baseUrl.startsWith("https://"),
      path: "/",
      maxAge: 60,
    });
  }
  c.header("Cache-Control", "no-store");
  return c.redirect(location, 303);
}

/** The flash message left by the redirect that led here (read once, then cleared). */
export function takeFlash(c: AppContext): string | null {
  const raw = getCookie(c, FLASH_COOKIE);
  if (raw === undefined) return null;
  deleteCookie(c, FLASH_COOKIE, { path: "/" });
  try {
    return decodeURIComponent(raw).slice(0, 300) || null;
  } catch {
    return null;
  }
}

/** Sets the session cookie of a member who just signed in or up (DESIGN §7 cookie attributes). */
export function startBrowserSession(c: AppContext, signedIn: { sessionToken: string }): void {
  setCookie(
    c,
    SESSION_COOKIE,
    signedIn.sessionToken,
    sessionCookieOptions(c.var.deps.config.baseUrl),
  );
}

/** Ends the browser's session: deleted in KV (so the token is dead everywhere) and the cookie. */
export async function endBrowserSession(c: AppContext): Promise<void> {
  const token = sessionFromCookie(c, "page");
  if (token) await logoutSession(c.var.deps.kv, token);
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
}

/**
 * The signed-in member, or `null` (no cookie, or an unknown, expired or signed-out session). The
 * session, the member and the member's record version are one strong read for a session this
 * instance has seen (lib/accounts/session_resolver.ts), so a page's record load after it reads
 * nothing more when the record is cached (issue #21: a page load in at most 3 round trips).
 */
export async function optionalPageMember(c: AppContext): Promise<PageMember | null> {
  // Storage not answering is a 503 page (service_busy passes through), not a signed-out one.
  const granted = await pageSession(c);
  if (!granted) return null;
  const { principal: session, token } = granted;
  c.set("memberId", session.memberId); // for the request log, which hashes it (issue #14)
  const member = profileOf(session.member);
  c.set("dateLocale", member.locale); // the page's dates are written in it (lib/http/web/pages.ts)
  return {
    memberId: session.memberId,
    recordVersion: granted.record.recordVersion,
    member,
    sessionToken: token,
    expiresAt: session.expiresAt,
    csrfToken: csrfTokenFor(token),
    flash: takeFlash(c),
  };
}

/** Whether the request carries a live session (public pages show "Today" instead of "Sign in"). */
export async function hasBrowserSession(c: AppContext): Promise<boolean> {
  const token = sessionFromCookie(c, "page");
  return !!token && (await findSession(c.var.deps.kv, c.var.deps.clock, token)) !== null;
}

/**
 * The signed-in member; signed out, it throws `SignInRequired`, which the page wrapper answers
 * with a 303 to `/signin?next=<this path>`.
 */
export async function requirePageMember(c: AppContext): Promise<PageMember> {
  const page = await optionalPageMember(c);
  if (page) return page;
  throw new SignInRequired(signInUrlFor(c));
}

/**
 * The form token of a signed-out page: from the pre-session cookie, minted on first use. It ties
 * the sign-in and sign-up forms to this browser (OWASP "Login CSRF").
 */
export function preSessionToken(c: AppContext): string {
  let secret = getCookie(c, PRESESSION_COOKIE);
  if (!secret || secret.length > 100) {
    secret = newSecret("formToken");
    setCookie(c, PRESESSION_COOKIE, secret, {
      ...sessionCookieOptions(c.var.deps.config.baseUrl),
      maxAge: 24 * 3600,
    });
  }
  return csrfTokenFor(secret);
}

/**
 * CSRF defence for a cookie-authenticated form POST (DESIGN §7, §14; OWASP CSRF cheat sheet):
 * a `Sec-Fetch-Site` of `cross-site` or `same-site` is refused (Fetch Metadata); an `Origin`
 * header must be this service's own; with no `Origin` (older browsers, some privacy settings) the
 * form's `csrf` field must equal the token of the session (or, signed out, of the pre-session
 * cookie). Throws `forbidden`.
 */
export function verifyFormPost(c: AppContext, form: { csrf?: unknown }): void {
  const refuse = () =>
    new AppError("forbidden", "This form was sent from another site, so it was refused.");
  const site = c.req.header("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") throw refuse();
  const origin = c.req.header("origin");
  if (origin !== undefined) {
    if (origin !== new URL(c.var.deps.config.baseUrl).origin) throw refuse();
    return;
  }
  const secret = sessionFromCookie(c, "page") ?? getCookie(c, PRESESSION_COOKIE);
  const sent = typeof form.csrf === "string" ? form.csrf : "";
  if (!secret || !sent || !safeEqual(sent, csrfTokenFor(secret))) throw refuse();
}
