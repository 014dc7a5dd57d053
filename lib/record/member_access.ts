/**
 * The per-instance state behind member access: both token caches — the API-token resolver (it
 * batches `lastUsedAt`) and the OAuth access-token verifier — the session resolver and the
 * member-record cache. Neither trusts anything without a strongly consistent read on each
 * request (docs/architecture.md, "Consistency across instances"). One per app; closed with it.
 *
 * Each credential check answers `{ principal, record }`: who the credential speaks for, and whose
 * record at which version to load. The resolvers in lib/accounts and lib/oauth read only their
 * credential's keys; the record version is read here, in the same coalesced batch as the
 * credential when this instance has seen the credential before (issue #21: a request in one round
 * trip; issue #23: accounts and OAuth read no record key).
 */

import type { Clock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { StrongReader } from "../foundation/kv_reads.ts";
import { MemberRecords, type RecordOwner } from "./member_records.ts";
import { ApiTokenResolver, type TokenPrincipal } from "../accounts/api_tokens.ts";
import { SessionResolver, type SessionWithMember } from "../accounts/session_resolver.ts";
import { AccessTokenVerifier, type OAuthPrincipal } from "../oauth/grants.ts";

/** A valid credential's principal and the record it opens (version set when read with it). */
export interface MemberAccessGrant<P> {
  principal: P;
  record: RecordOwner;
}

/** The token resolver and record cache of one instance. */
export class MemberAccess {
  readonly tokens: ApiTokenResolver;
  readonly accessTokens: AccessTokenVerifier;
  readonly sessions: SessionResolver;
  readonly records: MemberRecords;
  readonly #reader: StrongReader;

  /** `recordCacheBytes`: bound of the record cache (`RECORD_CACHE_MB`; default 64 MiB). */
  constructor(kv: Deno.Kv, clock: Clock, recordCacheBytes?: number) {
    // One coalescing reader for all: a credential and its member's record version share a batch.
    const reader = new StrongReader(kv);
    this.#reader = reader;
    this.tokens = new ApiTokenResolver(kv, clock, reader);
    this.accessTokens = new AccessTokenVerifier(kv, clock, reader);
    this.sessions = new SessionResolver(clock, reader);
    this.records = new MemberRecords(kv, clock, { reader, maxBytes: recordCacheBytes });
  }

  /** An API token's principal and record, or `null` when it is unknown or revoked. */
  apiToken(token: string): Promise<MemberAccessGrant<TokenPrincipal> | null> {
    return this.#withRecord(this.tokens.memberOf(token), this.tokens.resolve(token));
  }

  /** An OAuth access token's principal and record, or `null` (unknown, expired, revoked). */
  accessToken(token: string): Promise<MemberAccessGrant<OAuthPrincipal> | null> {
    return this.#withRecord(this.accessTokens.memberOf(token), this.accessTokens.verify(token));
  }

  /**
   * A session with its member, and its record, or `null` (unknown, expired, signed out). A session
   * this instance has not seen is read once first, to learn its member: then the session, the
   * member and the record version are read in one batch, as for a known session, and a page that
   * loads the record twice (Today and its habit list) reads the version once (issue #22: a first
   * visit took six sequential round trips, three of them for what one batch reads).
   */
  async session(token: string): Promise<MemberAccessGrant<SessionWithMember> | null> {
    if (this.sessions.memberOf(token) === undefined && !(await this.sessions.resolve(token))) {
      return null;
    }
    return this.#withRecord(this.sessions.memberOf(token), this.sessions.resolveWithMember(token));
  }

  /**
   * Joins the record version of the member the credential was seen to stand for (`hint`) to the
   * credential's own read: both are asked for in this turn of the event loop, so the coalescing
   * reader sends them in one `getMany`. The version is used only when the credential, read
   * strongly, still names that member; otherwise `load` reads it itself.
   */
  async #withRecord<P extends { memberId: string }>(
    hint: string | undefined,
    checked: Promise<P | null>,
  ): Promise<MemberAccessGrant<P> | null> {
    const version = hint === undefined
      ? undefined
      : this.#reader.get<Deno.KvU64>(keys.recordVersion(hint));
    version?.catch(() => {}); // awaited below only when it is used; its failure surfaces there
    const principal = await checked;
    if (!principal) return null;
    const record: RecordOwner = { memberId: principal.memberId };
    if (version && principal.memberId === hint) {
      record.recordVersion = (await version).value?.value ?? 0n;
    }
    return { principal, record };
  }

  /** Flushes `lastUsedAt` stamps (before the KV closes). */
  async close(): Promise<void> {
    await this.tokens.close();
  }
}
