/** The only place an error becomes a REST response: `{error, code, requestId}` (DESIGN §5). */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import {
  BUSY_RETRY_AFTER_SECONDS,
  isStorageFullError,
  isTransientKvError,
  storageFullError,
} from "../foundation/kv_commit.ts";
import type { AppContext } from "./define.ts";
import { logError } from "../foundation/log.ts";

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
 * Adds `Retry-After` to a `service_busy` answer (RFC 9110 §10.2.3: 503 may say when to retry): a
 * Response, or the answer a Response is about to be built from (lib/http/mcp_transport.ts).
 */
export function addRetryAfter<R extends { headers: Headers }>(res: R, err: AppError): R {
  if (err.code === "service_busy") {
    res.headers.set("Retry-After", String(err.details?.retryAfterSeconds ?? 1));
  }
  return res;
}

/**
 * The challenge of a REST 401. RFC 9110 §15.5.2: a 401 MUST carry `WWW-Authenticate` with a
 * challenge for the resource; every REST endpoint takes a bearer token (a session or API token),
 * so it is RFC 6750 §3's, with `error="invalid_token"` when a token was sent and refused. (`/api/mcp`
 * sends its own, naming its protected-resource metadata: lib/http/auth.ts `mcpChallenge`.)
 */
function restChallenge(err: AppError): string {
  if (err.code !== "invalid_token") return 'Bearer realm="routine-tracker"';
  const description = err.message.replaceAll('"', "'").replaceAll("\\", "/");
  return `Bearer realm="routine-tracker", error="invalid_token", error_description="${description}"`;
}

/** Renders an error as the REST envelope with its table status. Never a stack trace. */
export function errorResponse(c: AppContext, err: unknown): Response {
  const appError = toAppError(err);
  const requestId = c.get("requestId");
  if (appError.code === "internal") {
    logError("internal error", appError.cause ?? err, { requestId });
  }
  const body: Record<string, unknown> = {
    error: appError.message,
    code: appError.code,
    requestId,
  };
  if (appError.details) Object.assign(body, appError.details);
  const res = addRetryAfter(c.json(body, appError.status as 400), appError);
  if (appError.status === 401) res.headers.set("WWW-Authenticate", restChallenge(appError));
  return res;
}
