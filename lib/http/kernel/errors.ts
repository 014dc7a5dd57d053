/**
 * The one error core (issue #23): anything thrown becomes `errorParts` — status, headers, the
 * message a client may see, what to log — and the four dialects render those parts thinly: REST
 * (`errorResponse` here, `{error, code, requestId}`, DESIGN §5), JSON-RPC (lib/http/mcp/mcp_transport.ts),
 * OAuth (lib/http/oauth/oauth_errors.ts) and HTML pages (lib/http/web/pages.ts, oauth_authorize.ts).
 * `Retry-After` and `WWW-Authenticate` are built here and nowhere else.
 */

import { z } from "zod";
import { AppError } from "../../foundation/errors.ts";
import {
  BUSY_RETRY_AFTER_SECONDS,
  isStorageFullError,
  isTransientKvError,
  storageFullError,
} from "../../foundation/kv_commit.ts";
import type { AppContext } from "./define.ts";
import { logError } from "../../foundation/log.ts";

/**
 * Normalises anything thrown into an `AppError`; unknown faults become a bare `internal`. A KV
 * contention error that escaped lib/foundation/kv_commit.ts is still `service_busy`, never a 500 (issue #9);
 * a full disk met by a KV write outside it is still `storage_full` (507, issue #19).
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof z.ZodError) {
    return new AppError("invalid_request", z.prettifyError(err), { cause: err });
  }
  if (isStorageFullError(err)) return storageFullError(err);
  if (isTransientKvError(err)) {
    return new AppError("service_busy", "The service is busy; retry shortly.", {
      cause: err,
      details: { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS },
    });
  }
  return new AppError("internal", "Internal server error", { cause: err });
}

/**
 * RFC 9110 §5.6.4 `quoted-string`: the value between double quotes, with `"` and `\` sent as a
 * `quoted-pair`. The one quoting of a header parameter in the service.
 */
export function quotedString(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&")}"`;
}

/**
 * Text for an RFC 6750 §3 `error_description`, whose grammar allows only %x20-21 / %x23-5B /
 * %x5D-7E: `"` and `\` are not allowed even as quoted-pairs, and a header value must be a
 * ByteString (Fetch), so anything past ASCII would throw when set. The old REST and MCP challenges
 * each replaced a different subset of these (issue #23).
 */
function rfc6750Text(text: string): string {
  return text.replaceAll('"', "'").replaceAll("\\", "/").replace(/[^\x20-\x7e]/g, "?");
}

/** Which `WWW-Authenticate` a dialect sends (RFC 9110 §11.6.1). */
export type ChallengeOf =
  /** No challenge (OAuth endpoints, HTML pages). */
  | "none"
  /**
   * REST: RFC 9110 §15.5.2, a 401 MUST carry a challenge; every REST endpoint takes a bearer
   * token (a session or API token), so it is RFC 6750 §3's, with `error="invalid_token"` when a
   * token was sent and refused.
   */
  | "rest"
  /**
   * MCP (RFC 6750 §3, RFC 9728 §5.1): on any refused credential (401 and `insufficient_scope`'s
   * 403) the realm, the path-inserted protected-resource metadata URL of the endpoint called, and
   * the scope a `tools/call` needs.
   */
  | { resourceMetadata: string };

/** The `WWW-Authenticate` value for `e` in a dialect, or null when it sends none. */
export function challengeFor(e: AppError, of: ChallengeOf): string | null {
  if (of === "none") return null;
  if (of === "rest") {
    if (e.status !== 401) return null;
    return e.code === "invalid_token"
      ? bearer({ realm: "routine-tracker", error: "invalid_token", error_description: e.message })
      : bearer({ realm: "routine-tracker" });
  }
  if (e.code === "invalid_token") {
    return bearer({
      realm: "routine-tracker-mcp",
      resource_metadata: of.resourceMetadata,
      error: "invalid_token",
      error_description: e.message,
    });
  }
  const base = { realm: "routine-tracker-mcp", resource_metadata: of.resourceMetadata };
  if (e.code === "insufficient_scope") {
    return bearer({ ...base, error: "insufficient_scope", scope: "read" });
  }
  return e.code === "unauthorized" ? bearer({ ...base, scope: "read" }) : null;
}

/** A Bearer challenge (RFC 6750 §3): every parameter a quoted-string, in the order given. */
function bearer(params: Record<string, string>): string {
  const parts = Object.entries(params).map(([name, value]) =>
    `${name}=${quotedString(name === "error_description" ? rfc6750Text(value) : value)}`
  );
  return `Bearer ${parts.join(", ")}`;
}

/**
 * `Retry-After` seconds for an error, or null (RFC 9110 §10.2.3). `rate_limited` (429, RFC 6585
 * §4) waits for its window; `service_busy` (503) for storage to settle. A 429's value is also
 * written from the limiter's outcome by the common headers (lib/http/kernel/rate_limit.ts), the same number.
 */
function retryAfterOf(e: AppError): number | null {
  const told = e.details?.retryAfterSeconds;
  if (e.code === "rate_limited") return Math.max(typeof told === "number" ? told : 60, 1);
  if (e.code === "service_busy") return typeof told === "number" ? told : BUSY_RETRY_AFTER_SECONDS;
  return null;
}

/** What every dialect renders from an error. */
export interface ErrorParts {
  /** The error as the service's one type. */
  error: AppError;
  status: number;
  /** `Retry-After` and `WWW-Authenticate` when they apply; the renderer adds its own. */
  headers: Headers;
  /** What a client may read: the error's message (an `internal` error's says nothing of it). */
  publicMessage: string;
  /** What to log as an internal fault (with the request id), or null: expected errors are not logged. */
  logAs: unknown;
}

/** The parts of anything thrown, as a dialect with challenge `of` renders it. */
export function errorParts(err: unknown, of: ChallengeOf): ErrorParts {
  const error = toAppError(err);
  const headers = new Headers();
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== null) headers.set("Retry-After", String(retryAfter));
  const challenge = challengeFor(error, of);
  if (challenge !== null) headers.set("WWW-Authenticate", challenge);
  return {
    error,
    status: error.status,
    headers,
    publicMessage: error.message,
    logAs: error.code === "internal" ? error.cause ?? err : null,
  };
}

/** Logs an internal fault of `parts` under `label` (nothing for an expected error). */
export function logInternal(parts: ErrorParts, label: string, requestId: string): void {
  if (parts.logAs !== null) logError(label, parts.logAs, { requestId });
}

/** Copies the parts' headers onto a response's (or an answer's) headers. */
export function withErrorHeaders<R extends { headers: Headers }>(res: R, parts: ErrorParts): R {
  for (const [name, value] of parts.headers) res.headers.set(name, value);
  return res;
}

/** Renders an error as the REST envelope with its table status. Never a stack trace. */
export function errorResponse(c: AppContext, err: unknown): Response {
  const parts = errorParts(err, "rest");
  const requestId = c.get("requestId");
  logInternal(parts, "internal error", requestId);
  const body: Record<string, unknown> = {
    error: parts.publicMessage,
    code: parts.error.code,
    requestId,
  };
  if (parts.error.details) Object.assign(body, parts.error.details);
  return withErrorHeaders(c.json(body, parts.status as 400), parts);
}
