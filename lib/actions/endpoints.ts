/**
 * The three action endpoints as data: the table each serves, how its body is read and how it is
 * rate-limited (DESIGN §6–§8). `lib/http/kernel/action_endpoint.ts` serves them; the OpenAPI description
 * derives each operation's error responses from `errorCodesOf`, so the document lists exactly the
 * codes the endpoint can answer with.
 */

import { z } from "zod";
import { AuthRequest } from "../accounts/auth_messages.ts";
import { TokensRequest } from "../accounts/token_messages.ts";
import type { ErrorCode } from "../foundation/errors.ts";
import type { PolicyName } from "../policy/rate_limit.ts";
import type { ActionTable, Credential } from "./action_table.ts";
import { AUTH_ACTIONS } from "./auth_actions.ts";
import { PROXY_ACTIONS } from "./proxy_actions.ts";
import { TOKEN_ACTIONS } from "./token_actions.ts";

/** How one endpoint serves its table (HTTP-free: the route adds cookies). */
export interface ActionEndpointSpec {
  /** The endpoint's path, e.g. `/api/proxy` (deprecation targets are `<path>#<action>`). */
  path: string;
  actions: ActionTable;
  /**
   * Parses the whole body before dispatch: `{action}` for the proxy (an unknown name is
   * `unknown_action`), the documented discriminated union for auth and tokens.
   */
  request: z.ZodType<{ action: string }>;
  /** Whether an unknown `action` reaches dispatch (and answers `unknown_action`). */
  dispatchesUnknown: boolean;
  maxBodyBytes: number;
  policy: PolicyName;
  /**
   * `ip`: every request counts against the client IP before anything is read, so failed guesses
   * spend the quota too (OWASP brute-force advice). `caller`: the authenticated member counts (the
   * client IP for credential-free actions; DESIGN §6 `proxy`).
   */
  limitBy: "ip" | "caller";
  /** A credential every action needs, checked before the body is read (`/api/tokens`: DESIGN §7). */
  requires?: "session";
  /** `Cache-Control: no-store` on every answer (responses that carry secrets: RFC 9111 §5.2.2.5). */
  noStore?: boolean;
}

export const AUTH_ENDPOINT: ActionEndpointSpec = {
  path: "/api/auth",
  actions: AUTH_ACTIONS,
  request: AuthRequest,
  dispatchesUnknown: false,
  maxBodyBytes: 4096,
  policy: "auth",
  limitBy: "ip",
};

export const TOKENS_ENDPOINT: ActionEndpointSpec = {
  path: "/api/tokens",
  actions: TOKEN_ACTIONS,
  request: TokensRequest,
  dispatchesUnknown: false,
  maxBodyBytes: 4096,
  policy: "tokens",
  limitBy: "caller",
  requires: "session",
  noStore: true,
};

export const PROXY_ENDPOINT: ActionEndpointSpec = {
  path: "/api/proxy",
  actions: PROXY_ACTIONS,
  request: z.object({ action: z.string().min(1).max(64) }).loose(),
  dispatchesUnknown: true,
  // CSV imports are the largest payload; everything else is far smaller.
  maxBodyBytes: 1024 * 1024,
  policy: "proxy",
  limitBy: "caller",
};

/**
 * What any action request can fail with: the body, the quota, a fault, storage staying busy
 * past the commit retries (lib/http/kernel/errors.ts maps a transient KV error to `service_busy`), and a
 * full disk (`storage_full`; even a read-only action may write a counter or a last-used stamp).
 */
const REQUEST_ERRORS: readonly ErrorCode[] = [
  "invalid_request",
  "invalid_json",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "internal",
  "service_busy",
  "storage_full",
];

/** What establishing each credential can fail with (lib/http/kernel/auth.ts). */
const CREDENTIAL_ERRORS: Record<Credential, readonly ErrorCode[]> = {
  none: [],
  // No session, an API token sent instead, an expired one, a cookie from another origin.
  session: ["unauthorized", "session_required", "invalid_token", "forbidden"],
  // As a session, or an API token without `read` or used for a write.
  member: ["unauthorized", "invalid_token", "insufficient_scope", "forbidden"],
};

/** Every error code `endpoint` can answer with. */
export function errorCodesOf(endpoint: ActionEndpointSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(REQUEST_ERRORS);
  if (endpoint.requires) { for (const c of CREDENTIAL_ERRORS[endpoint.requires]) codes.add(c); }
  if (endpoint.dispatchesUnknown) {
    codes.add("unknown_action");
    for (const c of CREDENTIAL_ERRORS.member) codes.add(c);
  }
  for (const spec of Object.values(endpoint.actions)) {
    for (const c of CREDENTIAL_ERRORS[spec.credential]) codes.add(c);
    for (const c of spec.errors ?? []) codes.add(c);
  }
  return [...codes];
}
