/** Applying a rate-limit policy to a request and rendering the RateLimit fields (DESIGN §4, §6). */

import { AppError } from "../../foundation/errors.ts";
import {
  type PolicyName,
  RATE_LIMIT_POLICIES,
  type RateLimitOutcome,
} from "../../policy/rate_limit.ts";
import type { PasswordGuesses } from "../../accounts/password_guesses.ts";
import type { AppContext } from "./define.ts";
import { metrics } from "../../foundation/metrics.ts";

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
    refuse(
      outcome,
      `Rate limit "${policy}" exceeded: ${outcome.limit} requests per ${outcome.window} s. Retry in ${outcome.retryAfterSeconds} s.`,
    );
  }
  return outcome;
}

/** Counts the refusal and throws `rate_limited` (429; `Retry-After` from the outcome). */
function refuse(outcome: RateLimitOutcome, message: string): never {
  metrics.rateLimited(outcome.policy);
  throw new AppError("rate_limited", message, {
    details: { policy: outcome.policy, retryAfterSeconds: outcome.retryAfterSeconds },
  });
}

/**
 * Guesses at passwords for this request, counted per username under the `password` quota
 * (lib/accounts/password_guesses.ts). A refusal names that quota in the RateLimit headers; an
 * allowed guess leaves the request's own quota (`auth`, by address) in them. The message is one
 * for every username, existing or not.
 */
export function passwordGuessesOf(c: AppContext): PasswordGuesses {
  return {
    async spend(username) {
      const limiter = c.var.deps.rateLimiter;
      const outcome = await limiter.hit("password", username);
      if (!outcome.allowed) {
        c.set("rateLimit", outcome);
        refuse(
          outcome,
          `Too many wrong passwords for this username: at most ${outcome.limit} an hour. Until ` +
            `${outcome.retryAfterSeconds} s have passed, every sign-in with it is refused, even ` +
            `with the right password.`,
        );
      }
      return () => limiter.release("password", username, outcome);
    },
  };
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
