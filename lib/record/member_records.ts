/**
 * Turns a member's stored record into the `MemberRecord` the eighteen tools read, with a
 * per-instance cache keyed by the record version every write bumps in its own commit
 * (lib/record/store.ts). Each load reads that version with one strongly consistent `kv.get`, so a
 * write committed by any instance is seen by the next read on every instance; the record is
 * re-read only when the version moved (docs/architecture.md, "Consistency across instances").
 */

import type { Clock } from "../foundation/clock.ts";
import { type DayNumber, localDay } from "../foundation/dates.ts";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { StrongReader } from "../foundation/kv_reads.ts";
import type { Member } from "../accounts/accounts.ts";
import {
  type CoachInsight,
  type Column,
  type DayValue,
  FINDING_TTL_DAYS,
  type MemberRecord,
  type StoredFindings,
} from "./types.ts";
import { allEntries } from "./store.ts";

/** What the MCP engine needs: the record and the scope its results may be cached under. */
export interface MemberRecordHandle {
  record: MemberRecord;
  /** `${memberId}:${version}:${second}`: a new write or a new second is a new scope. */
  cacheScope: string;
}

/** A record without the instant it describes. */
export type RecordBase = Omit<MemberRecord, "today" | "now">;

interface CachedRecord {
  version: bigint;
  base: RecordBase;
  snapshot?: { second: number; handle: MemberRecordHandle };
}

/** At most this many members' records are held per instance (oldest dropped first). */
const CACHE_LIMIT = 500;

/** Loads and caches member records for one instance. */
export class MemberRecords {
  readonly #kv: Deno.Kv;
  readonly #clock: Clock;
  readonly #cache = new Map<string, CachedRecord>();

  readonly #reader: StrongReader;

  constructor(kv: Deno.Kv, clock: Clock, reader = new StrongReader(kv)) {
    this.#kv = kv;
    this.#clock = clock;
    this.#reader = reader;
  }

  /**
   * The member's record as of now. `today` and `generated_at` come from the clock, truncated to
   * the second so that results cached under one scope carry a true `generated_at`.
   */
  async load(memberId: string, knownVersion?: bigint): Promise<MemberRecordHandle> {
    let cached = this.#cache.get(memberId);
    // `knownVersion` was read strongly with the caller's credential, after the request began.
    const version = knownVersion ??
      (await this.#reader.get<Deno.KvU64>(keys.recordVersion(memberId))).value?.value ??
      0n;
    if (!cached || cached.version !== version) {
      // Read under the version just seen: a write landing meanwhile bumps it past this entry, so
      // the next load reloads (the record can be newer than its version, never older).
      cached = { version, base: await readRecordBase(this.#kv, memberId) };
      this.#cache.delete(memberId);
      if (this.#cache.size >= CACHE_LIMIT) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(memberId, cached);
    }
    const second = Math.floor(this.#clock() / 1000);
    // One snapshot per second per member: the time-zone conversion (Intl) and the object are
    // built once, not on every call of the hot path.
    if (cached.snapshot?.second !== second) {
      const base = cached.base;
      cached.snapshot = {
        second,
        handle: {
          record: snapshotAt(base, second * 1000),
          cacheScope: `${memberId}:${cached.version}:${second}`,
        },
      };
    }
    return cached.snapshot.handle;
  }
}

/**
 * Findings newer than 90 days at `nowMs`, newest first (the coach writes them; lib/coach/). Applied
 * to each snapshot, not when the record is read: a cached record outlives the day a finding turns
 * 90 days old, and every instance must drop it that day, whether or not it re-read the record.
 */
function liveInsights(insights: CoachInsight[], nowMs: number): CoachInsight[] {
  const oldest = nowMs - FINDING_TTL_DAYS * 86_400_000;
  return insights.filter((i) => Date.parse(i.created_at) > oldest);
}

/**
 * Reads a member's record from KV without "today" (the caller's clock decides it): profile,
 * columns, every entry and the coach's stored findings (a coach run or a dismissal bumps the
 * record version, so a cached record never serves stale findings). Throws `invalid_token` when
 * the account no longer exists.
 */
export async function readRecordBase(kv: Deno.Kv, memberId: string): Promise<RecordBase> {
  const [member, columns, findings] = await kv.getMany<[Member, Column[], StoredFindings]>([
    keys.member(memberId),
    keys.columns(memberId),
    keys.coachFindings(memberId),
  ]);
  if (!member.value) throw new AppError("invalid_token", "The token's account no longer exists.");
  const cols = columns.value ?? [];
  const values = new Map<string, Map<DayNumber, DayValue>>(cols.map((c) => [c.key, new Map()]));
  const notes = new Map<DayNumber, string>();
  for (const [day, entry] of await allEntries(kv, memberId)) {
    for (const [key, value] of Object.entries(entry.values)) values.get(key)?.set(day, value);
    if (entry.note) notes.set(day, entry.note);
  }
  return {
    synthetic: false,
    timezone: member.value.timezone,
    dayStartOffsetHours: member.value.dayStartOffsetHours,
    columns: cols,
    values,
    notes,
    insights: findings.value?.insights ?? [],
  };
}

/** A record snapshot at `nowMs` (member-local today from the member's time zone). */
export function snapshotAt(base: RecordBase, nowMs: number): MemberRecord {
  const second = Math.floor(nowMs / 1000);
  return {
    ...base,
    insights: liveInsights(base.insights, second * 1000),
    today: localDay(second * 1000, base.timezone, base.dayStartOffsetHours),
    now: new Date(second * 1000).toISOString(),
  };
}
