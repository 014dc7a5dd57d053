/** Bearer credentials on the MCP endpoint (DESIGN §9, RFC 6750, RFC 9728), sessions and cookies. */

import { getCookie } from "hono/cookie";
import { SESSION_LIFETIME_MS } from "../accounts/accounts.ts";
import { AppError } from "../foundation/errors.ts";
import { accessTokenVerifierFor } from "../oauth/grants.ts";
import { mcpResourceOf } from "../oauth/metadata.ts";
import { isTokenOf } from "../foundation/secrets.ts";
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

/** The caller a valid token speaks for. */
export interface Principal {
  memberId: string;
  scopes: readonly string[];
  /** The member's record version, when read together with the credential (one `getMany`). */
  recordVersion?: bigint;
}

/** The bearer token of the request, or `null` when no `Authorization: Bearer` was sent. */
export function bearerTokenOf(c: AppContext): string | null {
  const header = c.req.header("authorization");
  if (!header) return null;
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  return match ? match[1] : "";
}

/**
 * Resolves the MCP caller from its bearer token; throws `unauthorized` (none sent),
 * `invalid_token` (unknown, expired or revoked: RFC 6750 §3.1) or `insufficient_scope` (no `read`,
 * RFC 6750 §3.1 → 403). The token's key is read strongly on every call, so a revocation on any
 * instance is honoured on the very next call (docs/architecture.md).
 */
export async function requireMcpPrincipal(c: AppContext): Promise<Principal> {
  const token = bearerTokenOf(c);
  if (token === null) {
    throw new AppError(
      "unauthorized",
      "tools/call needs Authorization: Bearer <token> with scope read.",
    );
  }
  if (isTokenOf("accessToken", token)) return await requireOAuthPrincipal(c, token);
  const principal = token ? await c.var.deps.access.tokens.resolve(token) : null;
  if (!principal) throw new AppError("invalid_token", "The bearer token is not valid.");
  if (!principal.scopes.includes("read")) {
    throw new AppError("insufficient_scope", "The token lacks the read scope.");
  }
  c.set("memberId", principal.memberId);
  return principal;
}

/**
 * An OAuth access token (Route B, issue #4) on the MCP endpoint: valid, its grant not revoked, and
 * issued for this MCP resource — audience validation (RFC 8707 §2, MCP 2025-11-25 §Token Audience
 * Binding: a token for another resource MUST be rejected). `/api/mcp` and `/api/v1/mcp` are one
 * resource under two names, so a token for either is accepted at both.
 */
async function requireOAuthPrincipal(c: AppContext, token: string): Promise<Principal> {
  const { kv, clock, config } = c.var.deps;
  const principal = await accessTokenVerifierFor(kv, clock).verify(token);
  if (!principal || mcpResourceOf(config.baseUrl, principal.resource) === null) {
    throw new AppError(
      "invalid_token",
      "The access token is unknown, expired, revoked or not issued for this resource.",
    );
  }
  if (!principal.scopes.includes("read")) {
    throw new AppError("insufficient_scope", "The token lacks the read scope.");
  }
  c.set("memberId", principal.memberId);
  return principal;
}

/** A signed-in member as the session endpoints see it. */
export interface SessionPrincipal {
  memberId: string;
  sessionToken: string;
  expiresAt: number;
  /** True when the session came from the cookie rather than a bearer header. */
  viaCookie: boolean;
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
 *   own caller: `verifyFormPost` (Fetch Metadata, `Origin`, CSRF token) or `isSameOriginPost`.
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
    const origin = c.req.header("origin");
    const own = new URL(c.var.deps.config.baseUrl).origin;
    if (origin !== own && c.req.header("sec-fetch-site") !== "same-origin") {
      throw new AppError(
        "forbidden",
        "A cookie session is only accepted from this service's own origin.",
      );
    }
  }
  return cookie;
}

/** The session token of the request: a bearer (`TOKEN_KINDS.session`), else the cookie. */
function sessionTokenOf(c: AppContext): { token: string; viaCookie: boolean } | null {
  const bearer = bearerTokenOf(c);
  if (bearer !== null) return { token: bearer, viaCookie: false };
  const cookie = sessionFromCookie(c, "api");
  return cookie === null ? null : { token: cookie, viaCookie: true };
}

/**
 * Requires a signed-in session (bearer or cookie). An API token here is `session_required`: only a
 * session may mint tokens (DESIGN §7).
 */
export async function requireSession(c: AppContext): Promise<SessionPrincipal> {
  const sent = sessionTokenOf(c);
  if (!sent) {
    throw new AppError(
      "unauthorized",
      "This endpoint needs a signed-in session: Authorization: Bearer <sessionToken>.",
    );
  }
  if (isTokenOf("apiToken", sent.token)) {
    throw new AppError(
      "session_required",
      "An API token cannot do this; use the session token from /api/auth.",
    );
  }
  // One strong read; this instance then knows the session's member, so its pages read the
  // session, member and record version together (lib/accounts/session_resolver.ts).
  const session = await c.var.deps.access.sessions.resolve(sent.token);
  if (!session) {
    throw new AppError("invalid_token", "The session is unknown, expired or signed out.");
  }
  c.set("memberId", session.memberId);
  return {
    memberId: session.memberId,
    sessionToken: sent.token,
    expiresAt: session.expiresAt,
    viaCookie: sent.viaCookie,
  };
}

/**
 * The caller of a member action on `/api/proxy`: a session (may write) or an API token with
 * `read` (may only read).
 */
export async function requireMember(
  c: AppContext,
): Promise<{ memberId: string; credential: "session" | "api_token" }> {
  const bearer = bearerTokenOf(c);
  if (bearer !== null && isTokenOf("apiToken", bearer)) {
    const principal = await c.var.deps.access.tokens.resolve(bearer);
    if (!principal) throw new AppError("invalid_token", "The bearer token is not valid.");
    if (!principal.scopes.includes("read")) {
      throw new AppError("insufficient_scope", "The token lacks the read scope.");
    }
    c.set("memberId", principal.memberId);
    return { memberId: principal.memberId, credential: "api_token" };
  }
  if (bearer !== null && bearer !== "" && !isTokenOf("session", bearer)) {
    throw new AppError("invalid_token", "The bearer token is not valid.");
  }
  const session = await requireSession(c);
  return { memberId: session.memberId, credential: "session" };
}
