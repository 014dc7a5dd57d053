/** The only place an error becomes a REST response: `{error, code, requestId}` (DESIGN §5). */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import type { AppContext } from "./define.ts";

/** Normalises anything thrown into an `AppError`; unknown faults become a bare `internal`. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof z.ZodError) {
    return new AppError("invalid_request", z.prettifyError(err), { cause: err });
  }
  return new AppError("internal", "Internal server error", { cause: err });
}

/** Renders an error as the REST envelope with its table status. Never a stack trace. */
export function errorResponse(c: AppContext, err: unknown): Response {
  const appError = toAppError(err);
  const requestId = c.get("requestId");
  if (appError.code === "internal") {
    console.error(`[${requestId}] internal error:`, (appError.cause ?? err) as Error);
  }
  const body: Record<string, unknown> = {
    error: appError.message,
    code: appError.code,
    requestId,
  };
  if (appError.details) Object.assign(body, appError.details);
  return c.json(body, appError.status as 400);
}
