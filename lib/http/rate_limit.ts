/** Applying a rate-limit policy to a request and rendering the RateLimit fields (DESIGN §4, §6). */

import { AppError } from "../foundation/errors.ts";
import {
  type PolicyName,
  RATE_LIMIT_POLICIES,
  type RateLimitOutcome,
} from "../policy/rate_limit.ts";
import type { AppContext } from "./define.ts";
import { metrics } from "../foundation/metrics.ts";

/**
 * Counts this request under `policy` for `subject` and records the outcome for the response
 * headers; throws `rate_limited` (429) when the quota is spent.
 */
export async function enforceRateLimit(
  c: AppContext,
  policy: PolicyName,
  subject: string,
): Promise<RateLimitOutcome> {
  const outcome = await c.get("deps").rateLimiter.hit(policy, subject);
  c.set("rateLimit", outcome);
  if (!outcome.allowed) {
    metrics.rateLimited(policy);
    throw new AppError(
      "rate_limited",
      `Rate limit "${policy}" exceeded: ${outcome.limit} requests per ${outcome.window} s. Retry in ${outcome.retryAfterSeconds} s.`,
      { details: { policy, retryAfterSeconds: outcome.retryAfterSeconds } },
    );
  }
  return outcome;
}

/** The policy that governs a path when no handler named one (DESIGN §6 "governs"). */
export function defaultPolicyForPath(path: string): PolicyName {
  const p = path.startsWith("/api/v1/") ? "/api/" + path.slice(8) : path;
  if (!p.startsWith("/api/")) return "public";
  if (p.startsWith("/api/mcp")) return "mcp-meta";
  if (p.startsWith("/api/sandbox")) return "sandbox";
  if (p.startsWith("/api/auth")) return "auth";
  if (p.startsWith("/api/tokens")) return "tokens";
  if (p.startsWith("/api/proxy")) return "proxy";
  if (p.startsWith("/api/oauth")) return "oauth";
  return "public";
}

/** `RateLimit-Policy: "<name>";q=<quota>;w=<window>` (draft-ietf-httpapi-ratelimit-headers §5.1). */
export function policyHeaderValue(policy: PolicyName, multiplier: number): string {
  const p = RATE_LIMIT_POLICIES[policy];
  return `"${p.name}";q=${Math.max(1, Math.floor(p.q * multiplier))};w=${p.w}`;
}

/** Writes `RateLimit`, the legacy trio and, on 429, `Retry-After` (never earlier than `t`). */
export function writeRateLimitHeaders(headers: Headers, outcome: RateLimitOutcome): void {
  headers.set("RateLimit", `"${outcome.policy}";r=${outcome.remaining};t=${outcome.resetSeconds}`);
  headers.set("RateLimit-Limit", String(outcome.limit));
  headers.set("RateLimit-Remaining", String(outcome.remaining));
  headers.set("RateLimit-Reset", String(outcome.resetSeconds));
  if (!outcome.allowed) {
    headers.set("Retry-After", String(Math.max(outcome.retryAfterSeconds, 1)));
  }
}
