/**
 * Turns a member's stored record into the `MemberRecord` the eighteen tools read, with a
 * per-instance cache keyed by the record version every write bumps in its own commit
 * (lib/record/store.ts). Each load reads that version with one strongly consistent `kv.get`, so a
 * write committed by any instance is seen by the next read on every instance; the record is
 * re-read only when the version moved (docs/architecture.md, "Consistency across instances").
 */

import type { Clock } from "../foundation/clock.ts";
import { type DayNumber, localDay } from "../foundation/dates.ts";
import { ByteLru, MIB, stringBytes } from "../foundation/byte_lru.ts";
import { DEFAULT_RECORD_CACHE_MB } from "../foundation/config.ts";
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
import { allEntries, readEntries } from "./store.ts";
import {
  applyChanges,
  type Day,
  FOLD_AFTER,
  HEAD_PARTS,
  MAX_PARTS,
  partKeys,
  patchedNotes,
  type PatchedSnapshot,
  type RecordChanges,
  snapshotCurrent,
  snapshotDays,
  type SnapshotPart,
  snapshotParts,
  type Stamp,
  visitPatched,
  writeSnapshot,
} from "./record_snapshot.ts";
import { buildSeries, DaySeries, seriesOf } from "./day_series.ts";
import { DayNotes } from "./day_notes.ts";
import { type StoredPause, withPauses } from "./pauses.ts";

/** What the MCP engine needs: the record and the scope its results may be cached under. */
export interface MemberRecordHandle {
  record: MemberRecord;
  /** `${memberId}:${version}:${second}`: a new write or a new second is a new scope. */
  cacheScope: string;
}

/**
 * Whose record to load, and its record version when it was read strongly with the request's
 * credential (then `load` reads nothing more for a cached record).
 */
export interface RecordOwner {
  memberId: string;
  recordVersion?: bigint;
}

/** A record without the instant it describes. */
export type RecordBase = Omit<MemberRecord, "today" | "now">;

interface CachedRecord {
  version: bigint;
  base: RecordBase;
  snapshot?: { second: number; handle: MemberRecordHandle };
}

/** Options of `MemberRecords`. */
export interface MemberRecordsOptions {
  /** Coalescing strong reader (shared with the token resolver); one of its own by default. */
  reader?: StrongReader;
  /** Bound of the cache in bytes of `recordBytes` estimates (`RECORD_CACHE_MB`'s default). */
  maxBytes?: number;
}

/** Loads and caches member records for one instance, least recently used dropped first. */
export class MemberRecords {
  readonly #kv: Deno.Kv;
  readonly #clock: Clock;
  readonly #cache: ByteLru<CachedRecord>;

  readonly #reader: StrongReader;

  constructor(kv: Deno.Kv, clock: Clock, options: MemberRecordsOptions = {}) {
    this.#kv = kv;
    this.#clock = clock;
    this.#reader = options.reader ?? new StrongReader(kv);
    this.#cache = new ByteLru(options.maxBytes ?? DEFAULT_RECORD_CACHE_MB * MIB);
  }

  /** Estimated bytes and count of the records held (tests and measurements). */
  get held(): { bytes: number; records: number; maxBytes: number } {
    const cache = this.#cache;
    return { bytes: cache.bytes, records: cache.size, maxBytes: cache.maxBytes };
  }

  /** Whether the member's record is held, without making it more recent. */
  holds(memberId: string): boolean {
    return this.#cache.has(memberId);
  }

  /**
   * The member's record as of now. `today` and `generated_at` come from the clock, truncated to
   * the second so that results cached under one scope carry a true `generated_at`.
   */
  async load(memberId: string, knownVersion?: bigint): Promise<MemberRecordHandle> {
    let cached = this.#cache.get(memberId);
    let version = knownVersion;
    if (!cached && version === undefined) {
      // Not held, and no version read yet: the record's own first read carries its version (one
      // round trip fewer than reading the version first, issue #22).
      cached = await readVersionedRecord(this.#kv, memberId);
      this.#cache.set(memberId, cached, recordBytes(cached.base));
      version = cached.version;
    }
    // `knownVersion` was read strongly with the caller's credential, after the request began; a
    // held record is never trusted without that read or this one.
    version ??= (await this.#reader.get<Deno.KvU64>(keys.recordVersion(memberId))).value?.value ??
      0n;
    if (!cached || cached.version !== version) {
      // Read under the version just seen: a write landing meanwhile bumps it past this entry, so
      // the next load reloads (the record can be newer than its version, never older).
      cached = { version, base: await readRecordBase(this.#kv, memberId) };
      // Sized once, here, from counts and note lengths: never by serialising on a read. A record
      // larger than the whole bound is served from `cached` below but not kept.
      this.#cache.set(memberId, cached, recordBytes(cached.base));
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
 * Bytes of a record as read by `readRecordBase`, for the cache's bound: counted once, when the
 * record is read, from its sizes (never by serialising it). A dense column is its `DaySeries`'
 * typed arrays (`DaySeries.bytes`: a code byte a day and its numbers' bytes, outside the collected
 * heap); a sparse one a Map: V8 keeps a Map as a hash table whose capacity is the next power of two
 * (at least 4), 28 bytes a slot (three words of entry and half a word of bucket), and a number
 * that is not a small integer boxed (16 bytes). The notes are their `DayNotes`' UTF-8 and arrays
 * (lib/record/day_notes.ts); notes held as a Map are its table and strings
 * (lib/foundation/byte_lru.ts `stringBytes`). Columns and findings, a few kB, are counted as four
 * bytes per character of their JSON.
 *
 * Calibration (scripts/measure_record_cache.ts `calibrate`: heap and external memory growth after
 * `gc()` while 40 records are held, tests/_record_fixtures.ts members): a year of 8 columns grew
 * 1.5 MiB against an estimate of 1.5 (ratio 1.03); three years of 12 columns with journals, 15.0
 * MiB against 15.2 (1.02), most of it the journals' UTF-8. With the notes as a Map of strings they
 * had grown 1.7 and 19.2 MiB (a journal beyond Latin-1 is two bytes a character in V8); kept as
 * arrays of 8-byte slots 2.2 and 22.8 MiB, as Maps 6.1 and 32.9. tests/process/cache_bounds_test.ts
 * holds the estimate to the memory really taken.
 */
export function recordBytes(base: RecordBase): number {
  let bytes = RECORD_FIXED_BYTES + notesBytes(base.notes);
  for (const column of base.values.values()) bytes += columnBytes(column);
  const small = JSON.stringify(base.columns).length + JSON.stringify(base.insights).length;
  return bytes + SMALL_OBJECT_FACTOR * small;
}

/** A column's series: its `DaySeries`' arrays, or a sparse Map's hash table and boxed numbers. */
function columnBytes(column: ReadonlyMap<DayNumber, DayValue>): number {
  if (column instanceof DaySeries) return column.bytes;
  let boxed = 0;
  for (const value of column.values()) {
    if (typeof value === "number" && !isSmallInteger(value)) boxed++;
  }
  return mapBytes(column.size) + BOXED_NUMBER_BYTES * boxed;
}

/** The notes: a `DayNotes`' arrays, or a Map's hash table and strings. */
function notesBytes(notes: ReadonlyMap<DayNumber, string>): number {
  if (notes instanceof DayNotes) return notes.bytes;
  let bytes = mapBytes(notes.size);
  for (const note of notes.values()) bytes += stringBytes(note);
  return bytes;
}

/** V8's small integers (Smi, 31 bits) are stored in the slot itself. */
function isSmallInteger(n: number): boolean {
  return Number.isInteger(n) && n >= -(2 ** 30) && n < 2 ** 30;
}

/** The hash table of a Map of `size` entries. */
function mapBytes(size: number): number {
  const capacity = Math.max(4, 2 ** Math.ceil(Math.log2(Math.max(size, 1))));
  return MAP_FIXED_BYTES + MAP_SLOT_BYTES * capacity;
}

const RECORD_FIXED_BYTES = 2_048;
const MAP_FIXED_BYTES = 64;
const MAP_SLOT_BYTES = 28;
const BOXED_NUMBER_BYTES = 16;
const SMALL_OBJECT_FACTOR = 4;

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
 *
 * The entries come from the packed snapshot and the days written since
 * (lib/record/record_snapshot.ts): one `getMany` with the profile, then those days' entries.
 * Without a usable snapshot every entry is listed after that `getMany` (after the record version
 * it read, which the rebuild's commit checks) and a new snapshot is written for the next load.
 */
export async function readRecordBase(kv: Deno.Kv, memberId: string): Promise<RecordBase> {
  return (await readVersionedRecord(kv, memberId)).base;
}

/**
 * `readRecordBase` with the record version its first read saw (the head's `getMany` is one
 * consistent read): every day it holds is at least that version's, as with a version read before.
 */
async function readVersionedRecord(
  kv: Deno.Kv,
  memberId: string,
): Promise<{ version: bigint; base: RecordBase }> {
  const head = await readHead(kv, memberId);
  const { member, columns, findings, pauses } = head;
  if (!member.value) throw new AppError("invalid_token", "The token's account no longer exists.");
  const columnKeys = (columns.value ?? []).map((c) => c.key);
  const patched = await fromSnapshot(kv, head);
  const { values, notes } = patched && patched.changed.size <= FOLD_AFTER
    ? { values: seriesOf(columnKeys, visitPatched(patched)), notes: patchedNotes(patched) }
    : fromDays(columnKeys, (await rebuildSnapshot(kv, head, patched)).days);
  const base: RecordBase = {
    synthetic: false,
    timezone: member.value.timezone,
    dayStartOffsetHours: member.value.dayStartOffsetHours,
    columns: columns.value ?? [],
    values,
    notes,
    insights: findings.value?.insights ?? [],
    pauses: (pauses.value ?? []).map(({ start, end, columns }) => ({ start, end, columns })),
  };
  return { version: head.stamp.version, base };
}

/**
 * Writes the member's record snapshot when it has none usable, as its next load would (after a
 * restore: snapshots are never backed up). Answers whether it wrote one.
 */
export async function refreshSnapshot(kv: Deno.Kv, memberId: string): Promise<boolean> {
  const head = await readHead(kv, memberId);
  if (!head.member.value) return false;
  const patched = await fromSnapshot(kv, head);
  if (patched && patched.changed.size <= FOLD_AFTER) return false;
  return (await rebuildSnapshot(kv, head, patched)).written;
}

/**
 * The record's days as entries, for a load that writes a new snapshot: the usable snapshot with
 * its many changed days folded in, or else every entry (listed after the record version the head
 * read, which the rebuild's commit checks).
 */
async function rebuildSnapshot(kv: Deno.Kv, head: Head, patched: PatchedSnapshot | null) {
  const { memberId, versionEntry, stamp } = head;
  const days = patched
    ? applyChanges(snapshotDays(patched.parts), [...patched.changed], patched.read)
    : await allEntries(kv, memberId);
  const oldParts = (head.partsRead[0] as SnapshotPart | null)?.parts ?? 0;
  const written = await writeSnapshot(kv, { memberId, versionEntry, stamp, days, oldParts });
  return { days, written };
}

/** Series and notes from whole entries (ascending days). */
function fromDays(columnKeys: string[], days: Day[]) {
  const values = buildSeries(columnKeys, days.map(([day, e]) => [day, e.values]));
  const notes = DayNotes.of(days.flatMap(([day, e]) => e.note ? [[day, e.note]] : []));
  return { values, notes };
}

/**
 * A base's values with its pauses read as skips up to `today` (lib/record/pauses.ts), built once
 * per base and day: a snapshot is taken every second, the day changes once a day.
 */
const pausedValues = new WeakMap<
  RecordBase,
  { today: DayNumber; values: MemberRecord["values"] }
>();

function valuesOn(base: RecordBase, today: DayNumber): MemberRecord["values"] {
  if (!base.pauses?.length) return base.values;
  const held = pausedValues.get(base);
  if (held?.today === today) return held.values;
  const values = withPauses(base.values, base.columns, base.pauses, today);
  pausedValues.set(base, { today, values });
  return values;
}

/** What the load's one `getMany` read. */
interface Head {
  memberId: string;
  member: Deno.KvEntryMaybe<Member>;
  columns: Deno.KvEntryMaybe<Column[]>;
  findings: Deno.KvEntryMaybe<StoredFindings>;
  pauses: Deno.KvEntryMaybe<StoredPause[]>;
  versionEntry: Deno.KvEntryMaybe<Deno.KvU64>;
  stamp: Stamp;
  changes: RecordChanges | null;
  /** The snapshot's first parts as read, and how many parts its head says it has (0: none). */
  partsRead: unknown[];
  parts: number;
}

/** The profile, the record's version and counts, and the snapshot's first parts: one read. */
async function readHead(kv: Deno.Kv, memberId: string): Promise<Head> {
  const [member, columns, findings, pauses, versionEntry, other, changes, ...partsRead] = await kv
    .getMany<
      [
        Member,
        Column[],
        StoredFindings,
        StoredPause[],
        Deno.KvU64,
        Deno.KvU64,
        RecordChanges,
        ...unknown[],
      ]
    >([
      keys.member(memberId),
      keys.columns(memberId),
      keys.coachFindings(memberId),
      keys.pauses(memberId),
      keys.recordVersion(memberId),
      keys.recordOtherWrites(memberId),
      keys.recordChanges(memberId),
      ...partKeys(memberId, 0, HEAD_PARTS),
    ]);
  const values = partsRead.map((e) => e.value);
  const stamp = { version: versionEntry.value?.value ?? 0n, otherWrites: other.value?.value ?? 0n };
  const first = values[0] as SnapshotPart | null;
  const current = snapshotCurrent(first, stamp, changes.value);
  return {
    memberId,
    member,
    columns,
    findings,
    pauses,
    versionEntry,
    stamp,
    changes: changes.value,
    partsRead: values,
    parts: current ? first!.parts : 0,
  };
}

/** Whether the snapshot can be used as read: current, and complete in `MAX_PARTS`. */
function usable(head: Head): boolean {
  return head.parts > 0 && head.parts <= MAX_PARTS;
}

/** The snapshot as read and the changed days' entries; null when the snapshot is unusable. */
async function fromSnapshot(kv: Deno.Kv, head: Head): Promise<PatchedSnapshot | null> {
  if (!usable(head)) return null;
  const listed = head.changes?.days;
  const days = Array.isArray(listed) ? listed : [];
  const [rest, read] = await Promise.all([
    head.parts > HEAD_PARTS ? kv.getMany(partKeys(head.memberId, HEAD_PARTS, head.parts)) : [],
    readEntries(kv, head.memberId, days),
  ]);
  const parts = snapshotParts([...head.partsRead, ...rest.map((e) => e.value)]);
  return parts && { parts, changed: new Set(days), read };
}

/** A record snapshot at `nowMs` (member-local today from the member's time zone). */
export function snapshotAt(base: RecordBase, nowMs: number): MemberRecord {
  const second = Math.floor(nowMs / 1000);
  const today = localDay(second * 1000, base.timezone, base.dayStartOffsetHours);
  return {
    ...base,
    values: valuesOn(base, today),
    insights: liveInsights(base.insights, second * 1000),
    today,
    now: new Date(second * 1000).toISOString(),
  };
}
