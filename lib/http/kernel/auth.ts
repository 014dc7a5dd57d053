/**
 * The credentials module (issue #23): the one place that reads a bearer token (RFC 6750 §2.1) or
 * the session cookie, with one verifier per credential kind — API token, OAuth access token,
 * session, operator — behind one `authenticate(c, { accept, scopes })` (the shape of the MCP SDK's
 * `verifyBearerToken`). What each token prefix is lives in lib/foundation/secrets.ts `TOKEN_KINDS`.
 */

import { getCookie } from "hono/cookie";
import { SESSION_LIFETIME_MS } from "../../accounts/accounts.ts";
import { AppError } from "../../foundation/errors.ts";
import { mcpResourceOf } from "../../oauth/metadata.ts";
import { isTokenOf, safeEqual } from "../../foundation/secrets.ts";
import type { RecordOwner } from "../../record/member_records.ts";
import type { MemberAccessGrant } from "../../record/member_access.ts";
import type { SessionWithMember } from "../../accounts/session_resolver.ts";
import type { AppContext } from "./define.ts";

/** The web app's session cookie (HttpOnly, SameSite=Lax; see `sessionCookieOptions`). */
export const SESSION_COOKIE = "rt_session";

/**
 * Cookie attributes: HttpOnly (no script access), SameSite=Lax (RFC 6265bis §8.8: not sent on
 * cross-site POSTs), Secure whenever the service is served over https, scoped to `/`.
 */
export function sessionCookieOptions(baseUrl: string) {
  return {
    httpOnly: true,
    sameSite: "Lax" as const,
    secure: baseUrl.startsWith("https://"),
    path: "/",
    maxAge: SESSION_LIFETIME_MS / 1000,
  };
}

/** The kinds of credential a member request may carry. */
export type MemberCredential = "apiToken" | "accessToken" | "session";

/** The caller a valid credential speaks for. */
export interface Principal {
  kind: MemberCredential;
  memberId: string;
  /** A session holds every right; a token only its scopes (`read`, the only one). */
  scopes: readonly string[];
  /**
   * Whose record the credential opens, with its version when lib/record/member_access.ts read it
   * in the same batch as the credential (then the record load reads nothing more).
   */
  record: RecordOwner;
  /** For a session: its token, expiry and whether it came from the cookie. */
  session?: { token: string; expiresAt: number; viaCookie: boolean };
}

/** The bearer token of the request, or `null` when no `Authorization: Bearer` was sent. */
function bearerTokenOf(c: AppContext): string | null {
  const header = c.req.header("authorization");
  if (!header) return null;
  // RFC 6750 §2.1: `Bearer` (case-insensitive, RFC 9110 §11.1), one space or more, b64token.
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  return match ? match[1] : "";
}

/** One verifier per member credential: the principal of a token, or null when it is not valid. */
const VERIFIERS: Record<
  MemberCredential,
  { refusal: string; verify(c: AppContext, token: string): Promise<Principal | null> }
> = {
  apiToken: {
    refusal: "The bearer token is not valid.",
    async verify(c, token) {
      // Read strongly on every call, so a revocation on any instance is honoured on the very next
      // call (docs/architecture.md, "Consistency across instances").
      const granted = await c.var.deps.access.apiToken(token);
      return granted && { kind: "apiToken", ...granted.principal, record: granted.record };
    },
  },
  accessToken: {
    refusal: "The access token is unknown, expired, revoked or not issued for this resource.",
    async verify(c, token) {
      const granted = await c.var.deps.access.accessToken(token);
      // Audience validation (RFC 8707 §2, MCP 2025-11-25 §Token Audience Binding: a token for
      // another resource MUST be rejected). `/api/mcp` and `/api/v1/mcp` are one resource under
      // two names, so a token for either is accepted at both.
      const { baseUrl } = c.var.deps.config;
      if (!granted || mcpResourceOf(baseUrl, granted.principal.resource) === null) return null;
      return { kind: "accessToken", ...granted.principal, record: granted.record };
    },
  },
  session: {
    refusal: "The session is unknown, expired or signed out.",
    async verify(c, token) {
      // One strong read; this instance then knows the session's member, so its pages read the
      // session, member and record version together (lib/accounts/session_resolver.ts).
      const s = await c.var.deps.access.sessions.resolve(token);
      return s && {
        kind: "session",
        memberId: s.memberId,
        scopes: SESSION_SCOPES,
        record: { memberId: s.memberId },
        session: { token, expiresAt: s.expiresAt, viaCookie: false },
      };
    },
  },
};

/** A session may do all a `read` token may, and write (DESIGN §7). */
const SESSION_SCOPES: readonly string[] = ["read"];

/** What `authenticate` takes, and what it says when nothing was sent. */
export interface AuthenticateOptions {
  /**
   * The credential kinds the endpoint takes; a token of another kind is refused with the first
   * kind's message. Taking `session` also reads the session cookie (same-origin only).
   */
  accept: readonly MemberCredential[];
  /** Scopes a token must hold (RFC 6750 §3.1 `insufficient_scope`, 403). */
  scopes: readonly string[];
  /** The `unauthorized` message when no credential was sent. */
  missing: string;
}

/** The kind a token's prefix names (`TOKEN_KINDS`), or null. */
function kindOf(token: string): MemberCredential | null {
  for (const kind of ["session", "apiToken", "accessToken"] as const) {
    if (isTokenOf(kind, token)) return kind;
  }
  return null;
}

/**
 * The caller of a request: the credential sent (bearer, else — when `session` is accepted — the
 * session cookie), verified by its kind's verifier, holding `scopes`. Throws `unauthorized` (none
 * sent), `session_required` (an API token where only a session may act: only a session may mint
 * tokens, DESIGN §7), `invalid_token` (unknown, expired, revoked, or a kind not accepted: RFC 6750
 * §3.1) or `insufficient_scope` (403). Sets the context's `memberId` for the request log.
 */
export async function authenticate(
  c: AppContext,
  options: AuthenticateOptions,
): Promise<Principal> {
  const { accept } = options;
  const bearer = bearerTokenOf(c);
  const viaCookie = bearer === null && accept.includes("session");
  const token = viaCookie ? sessionFromCookie(c, "api") : bearer;
  if (token === null) throw new AppError("unauthorized", options.missing);
  const named = kindOf(token);
  if (named === "apiToken" && (viaCookie || !accept.includes("apiToken"))) {
    throw new AppError(
      "session_required",
      "An API token cannot do this; use the session token from /api/auth.",
    );
  }
  // The cookie only ever holds a session; a malformed `Authorization` header (`""`) is judged as
  // the session the endpoint takes, or else as its first kind.
  const kind = viaCookie || (token === "" && accept.includes("session")) ? "session" : named;
  const verifier = kind && accept.includes(kind) ? VERIFIERS[kind] : VERIFIERS[accept[0]];
  const principal = kind && accept.includes(kind) ? await verifier.verify(c, token) : null;
  if (!principal) throw new AppError("invalid_token", verifier.refusal);
  if (principal.session) principal.session.viaCookie = viaCookie;
  for (const scope of options.scopes) {
    if (!principal.scopes.includes(scope)) {
      throw new AppError("insufficient_scope", `The token lacks the ${scope} scope.`);
    }
  }
  c.set("memberId", principal.memberId);
  return principal;
}

/**
 * Who reads the session cookie, which decides the same-origin rule applied to it:
 * - `api`: a JSON endpoint (`/api/auth`, `/api/tokens`, …). Accepted only from the service's own
 *   origin (`Origin`, or `Sec-Fetch-Site: same-origin`), else `forbidden` (DESIGN §7;
 *   OWASP CSRF Cheat Sheet "Verifying Origin With Standard Headers"): no other site's script may
 *   act with the member's cookie.
 * - `page`: a web-app page or the OAuth authorization page. A GET is a top-level navigation, often
 *   from another site by design (a link, an app's authorization request); SameSite=Lax sends the
 *   cookie on it (RFC 6265bis §8.8.2) and a GET changes nothing. A page's POST is checked by its
 *   own caller: `verifyFormPost` (Fetch Metadata, `Origin`, CSRF token) or the `consentForm` rule.
 */
export type CookieReader = "api" | "page";

/**
 * The session token in the session cookie, or `null`: the one place the cookie is read (issue #23),
 * with the same-origin rule of `from`.
 */
export function sessionFromCookie(c: AppContext, from: CookieReader): string | null {
  const cookie = getCookie(c, SESSION_COOKIE);
  if (!cookie) return null;
  if (from === "api") {
    assertSameOrigin(
      c,
      "cookieApi",
      "A cookie session is only accepted from this service's own origin.",
    );
  }
  return cookie;
}

/**
 * The browser's session from its cookie (read by the `page` rule), with its member and record
 * (lib/record/member_access.ts), or `null`: no cookie, or an unknown, expired or signed-out
 * session. A known session's page reads session, member and record version in one round trip.
 */
export async function pageSession(
  c: AppContext,
): Promise<(MemberAccessGrant<SessionWithMember> & { token: string }) | null> {
  const token = sessionFromCookie(c, "page");
  if (!token) return null;
  const granted = await c.var.deps.access.session(token);
  return granted && { ...granted, token };
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Whether `host` (a hostname, or a `Host` header's name part) is a loopback name. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host);
}

const ownOrigins = new Map<string, string>();

/** The service's own origin, parsed once per base URL (URL parsing is measurable per request). */
export function ownOriginOf(c: AppContext): string {
  const base = c.var.deps.config.baseUrl;
  let own = ownOrigins.get(base);
  if (own === undefined) {
    own = new URL(base).origin;
    ownOrigins.set(base, own);
  }
  return own;
}

function originOfUrl(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * The same-origin rules of the service, each named with its reason (issue #23: three rules had
 * grown in three files). A page form post has a fourth, with a CSRF-token fallback:
 * lib/http/web/browser_session.ts `verifyFormPost`.
 */
export const SAME_ORIGIN_POLICIES = {
  /**
   * A JSON endpoint acting with the session cookie: `Origin` ours, or `Sec-Fetch-Site:
   * same-origin` (DESIGN §7; OWASP CSRF Cheat Sheet "Verifying Origin With Standard Headers"): no
   * other site's script may act with the member's cookie.
   */
  cookieApi: (c: AppContext, own: string) =>
    c.req.header("origin") === own || c.req.header("sec-fetch-site") === "same-origin",
  /**
   * The MCP transport (MCP transports §Security Warning, DNS rebinding): an `Origin`, when sent,
   * must be ours or a loopback origin (local tools such as the MCP Inspector). No `Origin` is a
   * non-browser client, which a rebinding attack is not.
   */
  mcpTransport: (c: AppContext, own: string) => {
    const origin = c.req.header("origin");
    if (origin === undefined || origin === own) return true;
    const parsed = originOfUrl(origin);
    return parsed !== null && isLoopbackHost(new URL(parsed).hostname);
  },
  /**
   * The OAuth authorization page's POSTs (consent and sign-in; login CSRF too): `Origin` ours, or
   * — only when a browser omitted it — `Referer` ours; a request carrying neither is refused.
   */
  consentForm: (c: AppContext, own: string) => {
    const origin = c.req.header("origin");
    if (origin !== undefined) return origin === own;
    const referer = c.req.header("referer");
    return !!referer && originOfUrl(referer) === own;
  },
} as const;

/** The name of a same-origin rule. */
export type SameOriginPolicy = keyof typeof SAME_ORIGIN_POLICIES;

/** Whether the request passes the same-origin rule `policy`. */
export function isSameOrigin(c: AppContext, policy: SameOriginPolicy): boolean {
  return SAME_ORIGIN_POLICIES[policy](c, ownOriginOf(c));
}

/** Throws `forbidden` with `message` unless the request passes the same-origin rule `policy`. */
export function assertSameOrigin(c: AppContext, policy: SameOriginPolicy, message: string): void {
  if (!isSameOrigin(c, policy)) throw new AppError("forbidden", message);
}

/**
 * The operator's verifier: `Authorization: Bearer <METRICS_TOKEN>`, for `/metrics` and the health
 * check's per-dependency detail. It needs no KV (it must work when KV does not), and is compared
 * with `safeEqual` (constant time over SHA-256 digests), so neither the content nor the length of
 * the token leaks through timing (OWASP ASVS 4.0 V2.10.4; RFC 6750 §2.1 for the header).
 */
export function isOperator(c: AppContext): boolean {
  const expected = c.var.deps.config.metricsToken;
  if (!expected) return false;
  const sent = bearerTokenOf(c);
  if (!sent) return false;
  return safeEqual(sent, expected);
}

/**
 * Refuses a request that is not the operator's: 404 when no `METRICS_TOKEN` is configured (the
 * endpoint is off and says nothing of itself), 401 with a Bearer challenge otherwise.
 */
export function requireOperator(c: AppContext): void {
  if (!c.var.deps.config.metricsToken) {
    throw new AppError("not_found", `No such path: ${c.req.path}`);
  }
  if (!isOperator(c)) {
    throw new AppError(
      "unauthorized",
      "This endpoint needs Authorization: Bearer <METRICS_TOKEN>.",
    );
  }
}
