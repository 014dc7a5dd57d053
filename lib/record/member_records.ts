/**
 * Turns a member's stored record into the `MemberRecord` the eighteen tools read, with a
 * per-instance cache keyed by the record version every write bumps (lib/record/store.ts). While
 * the cache epoch has not moved, a cached record is served with no KV access at all; after it moves,
 * one `kv.get` of the version decides whether to reuse or reload.
 */

import type { CacheEpoch } from "../cache_epoch.ts";
import type { Clock } from "../clock.ts";
import { type DayNumber, localDay } from "../dates.ts";
import { AppError } from "../errors.ts";
import { keys } from "../kv_keys.ts";
import type { Member } from "../accounts/accounts.ts";
import type { CoachInsight, Column, DayValue, MemberRecord, StoredFindings } from "./types.ts";
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
  /** Record version and coach stamp: a write or a coach run reloads. */
  version: string;
  generation: number;
  base: RecordBase;
  snapshot?: { second: number; handle: MemberRecordHandle };
}

/** At most this many members' records are held per instance (oldest dropped first). */
const CACHE_LIMIT = 500;

/** Loads and caches member records for one instance. */
export class MemberRecords {
  readonly #kv: Deno.Kv;
  readonly #clock: Clock;
  readonly #epoch: CacheEpoch;
  readonly #cache = new Map<string, CachedRecord>();

  constructor(kv: Deno.Kv, clock: Clock, epoch: CacheEpoch) {
    this.#kv = kv;
    this.#clock = clock;
    this.#epoch = epoch;
  }

  /**
   * The member's record as of now. `today` and `generated_at` come from the clock, truncated to
   * the second so that results cached under one scope carry a true `generated_at`.
   */
  async load(memberId: string): Promise<MemberRecordHandle> {
    let cached = this.#cache.get(memberId);
    if (!cached || cached.generation !== this.#epoch.generation) {
      const generation = this.#epoch.generation;
      const [recordVersion, coachStamp] = await this.#kv.getMany<[Deno.KvU64, Deno.KvU64]>([
        keys.recordVersion(memberId),
        keys.coachStamp(memberId),
      ]);
      const version = `${recordVersion.value?.value ?? 0n}.${coachStamp.value?.value ?? 0n}`;
      if (cached && cached.version === version) {
        cached.generation = generation;
        cached.snapshot = undefined;
      } else {
        cached = {
          version,
          generation,
          base: await readRecordBase(this.#kv, memberId, this.#clock()),
        };
        this.#cache.delete(memberId);
        if (this.#cache.size >= CACHE_LIMIT) this.#cache.delete(this.#cache.keys().next().value!);
        this.#cache.set(memberId, cached);
      }
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

/** Stored findings newer than 90 days, newest first (the coach writes them; lib/coach/). */
function liveInsights(stored: StoredFindings | null, nowMs: number): CoachInsight[] {
  const oldest = nowMs - 90 * 86_400_000;
  return (stored?.insights ?? []).filter((i) => Date.parse(i.created_at) > oldest);
}

/**
 * Reads a member's record from KV without "today" (the caller's clock decides it): profile,
 * columns, every entry and the coach's stored findings. Throws `invalid_token` when the account
 * no longer exists.
 */
export async function readRecordBase(
  kv: Deno.Kv,
  memberId: string,
  nowMs: number,
): Promise<RecordBase> {
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
    insights: liveInsights(findings.value, nowMs),
  };
}

/** A record snapshot at `nowMs` (member-local today from the member's time zone). */
export function snapshotAt(base: RecordBase, nowMs: number): MemberRecord {
  const second = Math.floor(nowMs / 1000);
  return {
    ...base,
    today: localDay(second * 1000, base.timezone, base.dayStartOffsetHours),
    now: new Date(second * 1000).toISOString(),
  };
}
