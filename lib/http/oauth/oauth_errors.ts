/**
 * The one exit for errors of the OAuth protocol endpoints (register, token): the RFC 6749 §5.2 /
 * RFC 7591 §3.2.2 body `{error, error_description}` plus DESIGN §5's `code` (same value) and
 * `requestId`, with `Cache-Control: no-store` (RFC 6749 §5.2 / OAuth 2.1 §3.2.4).
 */

import type { ErrorCode } from "../../foundation/errors.ts";
import type { AppContext } from "../kernel/define.ts";
import { errorParts, logInternal, withErrorHeaders } from "../kernel/errors.ts";

/** Codes that are OAuth wire error codes as they stand (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 §2). */
const OAUTH_WIRE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "unsupported_response_type",
  "invalid_scope",
  "invalid_target",
  "invalid_redirect_uri",
  "invalid_client_metadata",
  "access_denied",
]);

/** The OAuth `error` value for a service error code. */
export function oauthWireCode(code: ErrorCode): string {
  if (OAUTH_WIRE_CODES.has(code)) return code;
  if (
    code === "invalid_json" || code === "unsupported_media_type" || code === "payload_too_large"
  ) {
    return "invalid_request";
  }
  // RFC 6749 §4.1.2.1 names these two for transient and unexpected failures.
  if (
    code === "rate_limited" || code === "unavailable" || code === "conflict" ||
    code === "service_busy" || code === "storage_full"
  ) {
    return "temporarily_unavailable";
  }
  return "server_error";
}

/** Renders anything thrown by an OAuth endpoint as the RFC-shaped JSON error. Never a stack trace. */
export function oauthErrorResponse(c: AppContext, err: unknown): Response {
  const parts = errorParts(err, "none");
  const requestId = c.var.requestId;
  logInternal(parts, "internal error", requestId);
  const error = oauthWireCode(parts.error.code);
  const body: Record<string, unknown> = {
    error,
    error_description: parts.publicMessage,
    code: error,
    requestId,
  };
  if (parts.error.details) Object.assign(body, parts.error.details);
  const res = new Response(JSON.stringify(body), {
    status: parts.status,
    headers: {
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      "Pragma": "no-cache",
    },
  });
  return withErrorHeaders(res, parts);
}

/** Runs an OAuth endpoint body, turning a thrown error into the RFC-shaped response. */
export async function oauthEndpoint(
  c: AppContext,
  run: () => Promise<Response>,
): Promise<Response> {
  try {
    return await run();
  } catch (err) {
    return oauthErrorResponse(c, err);
  }
}

/** A JSON success response that must not be cached (tokens: RFC 6749 §5.1, OAuth 2.1 §3.2.3). */
export function noStoreJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      "Pragma": "no-cache",
    },
  });
}
