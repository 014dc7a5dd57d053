/**
 * The per-instance state behind member access: both token caches — the API-token resolver (it
 * batches `lastUsedAt`) and the OAuth access-token verifier — the session resolver and the
 * member-record cache. Neither trusts anything without a strongly consistent read on each
 * request (docs/architecture.md, "Consistency across instances"). One per app; closed with it.
 */

import type { Clock } from "../foundation/clock.ts";
import { StrongReader } from "../foundation/kv_reads.ts";
import { MemberRecords } from "../record/member_records.ts";
import { ApiTokenResolver } from "../accounts/api_tokens.ts";
import { SessionResolver } from "../accounts/session_resolver.ts";
import { AccessTokenVerifier } from "../oauth/grants.ts";

/** The token resolver and record cache of one instance. */
export class MemberAccess {
  readonly tokens: ApiTokenResolver;
  readonly accessTokens: AccessTokenVerifier;
  readonly sessions: SessionResolver;
  readonly records: MemberRecords;

  /** `recordCacheBytes`: bound of the record cache (`RECORD_CACHE_MB`; default 64 MiB). */
  constructor(kv: Deno.Kv, clock: Clock, recordCacheBytes?: number) {
    // One coalescing reader for all: a credential and its member's record version share a batch.
    const reader = new StrongReader(kv);
    this.tokens = new ApiTokenResolver(kv, clock, reader);
    this.accessTokens = new AccessTokenVerifier(kv, clock, reader);
    this.sessions = new SessionResolver(clock, reader);
    this.records = new MemberRecords(kv, clock, { reader, maxBytes: recordCacheBytes });
  }

  /** Flushes `lastUsedAt` stamps (before the KV closes). */
  async close(): Promise<void> {
    await this.tokens.close();
  }
}
