/** The dependencies the app is built from; injected so tests control KV, time and config. */

import type { SignInContext } from "../../accounts/accounts.ts";
import type { PasswordGuesses } from "../../accounts/password_guesses.ts";
import type { MemberAccess } from "../../record/member_access.ts";
import type { Clock } from "../../foundation/clock.ts";
import type { ClientMetadataFetcher } from "../../oauth/client_metadata_document.ts";
import type { Config } from "../../foundation/config.ts";
import type { ResultCache } from "../../mcp/result_cache.ts";
import type { DeprecationIndex } from "../../policy/deprecation.ts";
import type { RateLimiter } from "../../policy/rate_limit.ts";
import type { RequestLog } from "../../foundation/log.ts";

/** Everything a request handler may reach. */
export interface AppDeps {
  kv: Deno.Kv;
  clock: Clock;
  config: Config;
  rateLimiter: RateLimiter;
  deprecations: DeprecationIndex;
  /** Token resolver and member-record cache, read strongly per request (docs/architecture.md). */
  access: MemberAccess;
  /** Fetches OAuth Client ID Metadata Documents (SSRF-guarded; tests inject a stub). Issue #4. */
  clientMetadataFetcher: ClientMetadataFetcher;
  /** Serialised MCP tool results of immutable record states (lib/mcp/result_cache.ts). */
  mcpResults: ResultCache;
  /** One line per request (`LOG_FORMAT`); null when off. Issue #14. */
  requestLog: RequestLog | null;
}

/**
 * What the account functions need, from the app's deps: every sign-up path stamps `DEFAULT_TIER`,
 * every sign-in counts its guesses (`guesses`: lib/http/kernel/rate_limit.ts `passwordGuessesOf`).
 */
export function accountContextOf(
  { kv, clock, config }: AppDeps,
  guesses: PasswordGuesses,
): SignInContext {
  return {
    kv,
    clock,
    passwordIterations: config.passwordIterations,
    defaultTier: config.defaultTier,
    guesses,
  };
}
