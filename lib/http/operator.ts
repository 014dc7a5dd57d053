/**
 * The operator's credential: `Authorization: Bearer <METRICS_TOKEN>`, for `/metrics` and the
 * health check's per-dependency detail. It needs no KV (it must work when KV does not), and is
 * compared with `safeEqual` (lib/foundation/secrets.ts: constant time over SHA-256 digests), so
 * neither the content nor the length of the token leaks through timing (OWASP ASVS 4.0 V2.10.4;
 * RFC 6750 §2.1 for the header).
 */

import { AppError } from "../foundation/errors.ts";
import { safeEqual } from "../foundation/secrets.ts";
import { bearerTokenOf } from "./auth.ts";
import type { AppContext } from "./define.ts";

/** True when the request carries the configured operator token. */
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
