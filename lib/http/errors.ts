/** The only place an error becomes a REST response: `{error, code, requestId}` (DESIGN §5). */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import { BUSY_RETRY_AFTER_SECONDS, isTransientKvError } from "../foundation/kv_commit.ts";
import type { AppContext } from "./define.ts";
import { logError } from "../foundation/log.ts";

/**
 * Normalises anything thrown into an `AppError`; unknown faults become a bare `internal`. A KV
 * contention error that escaped lib/foundation/kv_commit.ts is still `service_busy`, never a 500 (issue #9).
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof z.ZodError) {
    return new AppError("invalid_request", z.prettifyError(err), { cause: err });
  }
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
  return addRetryAfter(c.json(body, appError.status as 400), appError);
}
