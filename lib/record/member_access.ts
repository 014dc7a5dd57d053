/**
 * The per-instance state behind member access: the cache epoch watch, the API-token resolver and
 * the member-record cache. One per app; closed with it.
 */

import { CacheEpoch } from "../foundation/cache_epoch.ts";
import type { Clock } from "../foundation/clock.ts";
import { MemberRecords } from "./member_records.ts";
import { ApiTokenResolver } from "../accounts/api_tokens.ts";

/** Caches that must all see the same invalidations. */
export class MemberAccess {
  readonly epoch: CacheEpoch;
  readonly tokens: ApiTokenResolver;
  readonly records: MemberRecords;

  constructor(kv: Deno.Kv, clock: Clock) {
    this.epoch = new CacheEpoch(kv);
    this.tokens = new ApiTokenResolver(kv, clock, this.epoch);
    this.records = new MemberRecords(kv, clock, this.epoch);
  }

  /** Flushes `lastUsedAt` stamps and stops the watch (before the KV closes). */
  async close(): Promise<void> {
    await this.tokens.close();
    await this.epoch.close();
  }
}
