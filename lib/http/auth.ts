/** Bearer credentials on the MCP endpoint (DESIGN §9, RFC 6750, RFC 9728). */

import { AppError } from "../errors.ts";
import type { AppContext } from "./define.ts";

/** The caller a valid token speaks for. */
export interface Principal {
  memberId: string;
  scopes: readonly string[];
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
 * `invalid_token` (unknown, expired or revoked) or `insufficient_scope` (no `read`).
 * Accounts arrive with issue #3; until then no token is valid.
 */
export function requireMcpPrincipal(c: AppContext): Promise<Principal> {
  const token = bearerTokenOf(c);
  if (token === null) {
    return Promise.reject(
      new AppError("unauthorized", "tools/call needs Authorization: Bearer <token> with scope read."),
    );
  }
  return Promise.reject(new AppError("invalid_token", "The bearer token is not valid."));
}

/**
 * `WWW-Authenticate` for a 401/403 from `/api/mcp` (RFC 6750 §3, RFC 9728 §5.1): the realm and the
 * path-inserted protected-resource metadata URL of the endpoint that was called.
 */
export function mcpChallenge(
  baseUrl: string,
  endpointPath: string,
  error?: AppError,
): string {
  const metadata = `${baseUrl}/.well-known/oauth-protected-resource${endpointPath}`;
  let value = `Bearer realm="routine-tracker-mcp", resource_metadata="${metadata}"`;
  if (error?.code === "invalid_token") {
    value += `, error="invalid_token", error_description="${error.message.replaceAll('"', "'")}"`;
  } else if (error?.code === "insufficient_scope") {
    value += `, error="insufficient_scope", scope="read"`;
  } else {
    value += `, scope="read"`;
  }
  return value;
}
