/**
 * The member web app's HTTP plumbing (DESIGN §14): who is signed in (the session cookie), CSRF for
 * cookie-authenticated form posts, safe `next` redirects, flash messages over Post/Redirect/Get,
 * reading form bodies, and rendering pages — every failure as an HTML page, never JSON or a stack.
 */

import { createHash } from "node:crypto";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { VNode } from "preact";
import { ErrorPage } from "../../components/ErrorPage.tsx";
import { findSession, logoutSession, type SignedIn } from "../accounts/accounts.ts";
import { newSecret, safeEqual } from "../foundation/secrets.ts";
import { AppError } from "../foundation/errors.ts";
import { type Profile, profileOf } from "../record/store.ts";
import { SESSION_COOKIE, sessionCookieOptions, sessionFromCookie } from "./auth.ts";
import { readBodyText } from "./body.ts";
import type { AppContext } from "./define.ts";
import { errorParts, errorResponse, logInternal } from "./errors.ts";
import { mediaTypeOf, namesMediaType } from "./media_type.ts";
import { enforceRateLimit } from "./rate_limit.ts";
import { renderPage } from "./render.tsx";
import type { ActionTable } from "../actions/action_table.ts";
import { PROXY_ACTIONS } from "../actions/proxy_actions.ts";
import { actionContext } from "./action_endpoint.ts";

/** Signed-out forms (sign in, sign up) get their form token from this cookie (login CSRF). */
export const PRESESSION_COOKIE = "rt_form";
/** A one-shot message carried over a 303 redirect. */
export const FLASH_COOKIE = "rt_flash";
/** Largest urlencoded page form accepted. */
export const MAX_PAGE_FORM_BYTES = 64 * 1024;

/** The signed-in member of a page request. */
export interface PageMember {
  memberId: string;
  /** The member's record version, read with the session (lib/record/member_records.ts `load`). */
  recordVersion: bigint;
  member: Profile;
  sessionToken: string;
  /** The value of the hidden `csrf` field every POST form of the page carries. */
  csrfToken: string;
  /** The flash message of the redirect that led here, if any (consumed). */
  flash: string | null;
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
export function startBrowserSession(c: AppContext, signedIn: SignedIn): void {
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
  const token = sessionFromCookie(c, "page");
  if (!token) return null;
  // Storage not answering is a 503 page (service_busy passes through), not a signed-out one.
  const session = await c.var.deps.access.sessions.resolveWithMember(token);
  if (!session) return null;
  c.set("memberId", session.memberId); // for the request log, which hashes it (issue #14)
  return {
    memberId: session.memberId,
    recordVersion: session.recordVersion,
    member: profileOf(session.member),
    sessionToken: token,
    csrfToken: csrfTokenFor(token),
    flash: takeFlash(c),
  };
}

/** Whether the request carries a live session (public pages show "Today" instead of "Sign in"). */
export async function hasBrowserSession(c: AppContext): Promise<boolean> {
  const token = sessionFromCookie(c, "page");
  return !!token && (await findSession(c.var.deps.kv, c.var.deps.clock, token)) !== null;
}

/** The signed-in member, or a 303 to `/signin?next=<this path>`. */
export async function requirePageMember(c: AppContext): Promise<PageMember | Response> {
  const page = await optionalPageMember(c);
  if (page) return page;
  c.header("Cache-Control", "no-store");
  return c.redirect(signInUrlFor(c), 303);
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

/**
 * A form body as one string per field (the first of repeated fields): urlencoded, or multipart
 * with its file parts left out (use `readMultipartForm` for uploads). Unknown types give `{}`.
 */
export async function readForm(
  c: AppContext,
  maxBytes = MAX_PAGE_FORM_BYTES,
): Promise<Record<string, string>> {
  const type = mediaTypeOf(c);
  if (type === "multipart/form-data") return (await readMultipartForm(c, maxBytes)).fields;
  if (type !== "application/x-www-form-urlencoded") return {};
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(await readBodyText(c, maxBytes))) {
    if (!Object.hasOwn(out, k)) out[k] = v;
  }
  return out;
}

/** A multipart form: its text fields and its files (at most `maxBytes` in all). */
export async function readMultipartForm(
  c: AppContext,
  maxBytes: number,
): Promise<{ fields: Record<string, string>; files: Record<string, File> }> {
  const declared = Number(c.req.header("content-length") ?? NaN);
  if (!(declared <= maxBytes)) {
    throw new AppError("payload_too_large", `The upload exceeds ${maxBytes} bytes.`, {
      details: { maxBytes },
    });
  }
  const fields: Record<string, string> = {};
  const files: Record<string, File> = {};
  let data: FormData;
  try {
    data = await c.req.raw.formData();
  } catch {
    throw new AppError("invalid_request", "The form could not be read.");
  }
  for (const [k, v] of data) {
    if (typeof v === "string") fields[k] ??= v;
    else files[k] ??= v;
  }
  return { fields, files };
}

/**
 * Headers of every HTML page: never cached (member data). The CSP, framing and referrer headers
 * are the service's one HTML policy, set by the middleware (lib/http/security_headers.ts): the
 * pages need no exception — no inline script and no `style` attribute.
 */
function pageHeaders(c: AppContext): void {
  c.header("Cache-Control", "no-store");
}

/** Renders a page (a `Document` tree) as the response. */
export function pageResponse(
  c: AppContext,
  node: VNode,
  opts: { status?: number } = {},
): Response {
  pageHeaders(c);
  return c.html(renderPage(node), (opts.status ?? 200) as 200);
}

/**
 * Wraps a page handler so that any failure becomes an HTML error page with the error's status
 * (403 for a refused form, 429 when rate-limited, 500 without details) — never JSON, never a stack.
 */
export function htmlPage(
  handle: (c: AppContext) => Promise<Response> | Response,
): (c: AppContext) => Promise<Response> {
  return async (c) => {
    try {
      return await handle(c);
    } catch (err) {
      const parts = errorParts(err, "none");
      logInternal(parts, "page failed", c.var.requestId);
      for (const [name, value] of parts.headers) c.header(name, value);
      const message = parts.error.code === "internal"
        ? "Something went wrong on our side. Try again."
        : parts.publicMessage;
      return pageResponse(c, ErrorPage({ status: parts.status, message }), {
        status: parts.status,
      });
    }
  };
}

/**
 * Runs a `/api/proxy` action for the signed-in member of a page — the very action spec the REST
 * endpoint runs (DESIGN §14: nothing implemented twice), under the same `proxy` rate-limit policy,
 * with the session's rights (a page is always a signed-in session).
 */
export async function runPageAction(
  c: AppContext,
  memberId: string,
  body: { action: string } & Record<string, unknown>,
): Promise<unknown> {
  await enforceRateLimit(c, "proxy", memberId);
  const { action: name, ...fields } = body;
  const actions: ActionTable = PROXY_ACTIONS;
  if (!Object.hasOwn(actions, name)) {
    throw new AppError("unknown_action", `Unknown action "${name.slice(0, 64)}".`);
  }
  const spec = actions[name];
  const input = spec.input.parse(fields);
  return await spec.run(actionContext(c), input, { memberId, credential: "session" } as never);
}

/**
 * The answer for a method a path does not serve (RFC 9110 §15.5.6, `Allow` lists the others). A
 * browser that GETs a form-only page address — reloading `/app/settings/import` from the address
 * bar after a refused form or a preview — gets an HTML page with a way back (DESIGN §14: every
 * failure of a page is an HTML page); every other client the JSON envelope.
 */
export function methodNotAllowedResponse(c: AppContext, allowed: readonly string[]): Response {
  const wantsHtml = namesMediaType(c, "text/html");
  const res = wantsHtml && !c.req.path.startsWith("/api/") && c.req.method === "GET"
    ? pageResponse(
      c,
      ErrorPage({ status: 405, message: "This address only takes a form; open the page again." }),
      { status: 405 },
    )
    : errorResponse(
      c,
      new AppError("method_not_allowed", `This path accepts ${allowed.join(", ")}.`, {
        details: { allow: allowed },
      }),
    );
  res.headers.set("Allow", allowed.join(", "));
  return res;
}

/**
 * The answer for a path no route serves: a person's browser (a non-API path asking for HTML) gets
 * the 404 page with a way back — `/app/` goes to `/app` — and every other client the JSON envelope.
 */
export function notFoundResponse(c: AppContext): Response {
  const path = c.req.path;
  const wantsHtml = namesMediaType(c, "text/html");
  if (!wantsHtml || path.startsWith("/api/") || c.req.method !== "GET") {
    return errorResponse(c, new AppError("not_found", `No such path: ${path}`));
  }
  if (path === "/app/") return redirectTo(c, "/app");
  return pageResponse(
    c,
    ErrorPage({ status: 404, message: "There is no page at this address." }),
    { status: 404 },
  );
}
