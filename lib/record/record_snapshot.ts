/**
 * A member's entries packed into a few KV values, so that a cold record load reads a handful of
 * values and the days written since, not one KV entry a day (issue #22: a three-year record of
 * twelve columns was 1,095 entries and 55–110 ms, a quarter of it deserialising 1,095 objects and
 * a quarter SQLite). The entries stay the source of truth; the snapshot is derived from them,
 * never backed up (`KEY_DURABILITY` marks it volatile) and rebuilt whenever it is missing.
 *
 * Why it is never stale, on any number of instances or processes sharing the KV:
 * - Every write of one day's entry (`saveEntry`, `deleteEntry`) adds the day to the member's
 *   `record_changes` and counts itself there, in the same commit, checked against the list as read
 *   (a concurrent write retries). A bulk write (`writeEntries`) deletes the snapshot's head in its
 *   commit instead, so the next load rebuilds from the entries.
 * - Every other bump of the record version (profile, columns, coach findings) counts itself in
 *   `record_other_writes` (`bumpOtherWrite`). The snapshot is stamped with the record version and
 *   that count when built; a load uses it only while the version has moved by exactly the writes
 *   counted since. A write that bumped the version without being counted — by a release before
 *   this one during a rolling upgrade, or by code that forgot — makes the load read every entry
 *   and rebuild, never serve a stale day.
 * - A load reads the version, the counts, the list and the snapshot's head in one `getMany` — one
 *   consistent read — then the listed days from the entries: a day not listed is as the snapshot
 *   holds it.
 * - A rebuild writes the snapshot and empties the list in one commit, checked against the record
 *   version entry read before any entry it packs (a write since makes it a no-op).
 *
 * Layout: part 0 is the head (it says how many parts there are); each part holds consecutive days
 * as typed arrays (V8 copies each as one buffer, where 1,095 entries were 1,095 objects to
 * deserialise), under the 64 KB value limit (`KV_LIMITS.valueBytes`).
 */

import type { DayNumber } from "../foundation/dates.ts";
import { keys } from "../foundation/kv_keys.ts";
import { KV_LIMITS, valueSize } from "../foundation/kv_limits.ts";
import type { DayValue } from "./types.ts";
import type { StoredEntry } from "./store.ts";
import { DayNotes, type PackedNote } from "./day_notes.ts";
import { type DayVisitor, tagOf, untagged, ValueTag, visitDays } from "./day_series.ts";

/** Bumped when the layout changes: a part of another format is treated as missing. */
export const SNAPSHOT_FORMAT = 2;
const FORMAT = SNAPSHOT_FORMAT;
/**
 * Parts a snapshot may have: all of them go in one commit (`KV_LIMITS.atomicBytes`, 800 KiB). A
 * larger record (about four years of twelve columns with a long journal on two days in three) is
 * read entry by entry, as before.
 */
export const MAX_PARTS = 12;
/** Parts read with the profile in the load's one `getMany` (ten keys; seven are fixed, #25). */
export const HEAD_PARTS = 3;
/** Changed days listed before the list gives up ("many") and the next load reads every entry. */
export const MAX_CHANGES = 200;
/** Changed days beyond which a load folds them into a new snapshot. */
export const FOLD_AFTER = 16;
/** Bytes a part is filled to; its serialised form is then checked against the 64 KB limit. */
const PART_BUDGET = 62_000;

/** One stored part: `days.length` rows of `keys.length` values, row-major. */
export interface SnapshotPart {
  format: number;
  /** How many parts the snapshot has (the same in every part). */
  parts: number;
  /** The record version and `record_other_writes` when the snapshot was built (decimal). */
  version: string;
  otherWrites: string;
  days: Int32Array;
  keys: string[];
  /** Each value's `ValueTag` (lib/record/day_series.ts); a number is in `nums` at its index. */
  tags: Uint8Array;
  nums: Float64Array;
  /** Indexes into `days` of the days with a note, and where each note ends in `noteBytes`. */
  noteAt: Int32Array;
  noteEnds: Int32Array;
  /** The notes as UTF-8, one after the other. */
  noteBytes: Uint8Array;
}

/** A day of the record as a load assembles it. */
export type Day = [DayNumber, StoredEntry];

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** A day to pack, with its note as UTF-8 (a journal in V8's two-byte form is twice its length). */
type Row = { day: Day; note: Uint8Array | null };

/** The rows as one part (its `parts` is filled in by `encodeSnapshot`). */
function packPart(rows: Row[], stamp: Stamp): SnapshotPart {
  const columnKeys = [...new Set(rows.flatMap(({ day: [, e] }) => Object.keys(e.values)))];
  const width = columnKeys.length;
  const tags = new Uint8Array(rows.length * width);
  const nums = new Float64Array(rows.length * width);
  const noteAt: number[] = [], noteEnds: number[] = [];
  const noteBytes = new Uint8Array(rows.reduce((n, r) => n + (r.note?.length ?? 0), 0));
  rows.forEach(({ day: [, entry], note }, row) => {
    columnKeys.forEach((key, c) => {
      const value = entry.values[key];
      if (value === undefined) return;
      tags[row * width + c] = tagOf(value);
      if (typeof value === "number") nums[row * width + c] = value;
    });
    if (note === null) return;
    const start = noteEnds.at(-1) ?? 0;
    noteBytes.set(note, start);
    noteAt.push(row), noteEnds.push(start + note.length);
  });
  return {
    format: FORMAT,
    parts: 0,
    version: String(stamp.version),
    otherWrites: String(stamp.otherWrites),
    days: Int32Array.from(rows, ({ day: [day] }) => day),
    keys: columnKeys,
    tags,
    nums,
    noteAt: Int32Array.from(noteAt),
    noteEnds: Int32Array.from(noteEnds),
    noteBytes,
  };
}

/** A row's share of a part: its values (a tag and a double each) and its note. */
function rowBytes({ day: [, entry], note }: Row): number {
  return 16 + 9 * Object.keys(entry.values).length + (note?.length ?? 0);
}

/**
 * The record's days (ascending) as snapshot parts, or null when they do not fit in `MAX_PARTS`
 * values of at most 64 KB (the record is then read entry by entry).
 */
export function encodeSnapshot(days: Day[], stamp: Stamp): SnapshotPart[] | null {
  const rows = days.map((day): Row => ({
    day,
    note: day[1].note === null ? null : utf8.encode(day[1].note),
  }));
  const parts: SnapshotPart[] = [];
  let start = 0, bytes = 0;
  for (let i = 0; i <= rows.length; i++) {
    const size = i < rows.length ? rowBytes(rows[i]) : 0;
    if (i === rows.length || (bytes + size > PART_BUDGET && i > start)) {
      parts.push(packPart(rows.slice(start, i), stamp));
      if (parts.length > MAX_PARTS) return null;
      [start, bytes] = [i, 0];
    }
    bytes += size;
  }
  for (const part of parts) part.parts = parts.length;
  return parts.every((p) => valueSize(p) <= KV_LIMITS.valueBytes) ? parts : null;
}

/** The value a part holds at `at` (row-major index), or undefined when missing. */
function valueAt(part: SnapshotPart, at: number): DayValue | undefined {
  const tag = part.tags[at];
  return tag === ValueTag.Number ? part.nums[at] : untagged(tag);
}

/** Each note of a part as its UTF-8 (a view into the part), with the index of its row. */
function forEachNote(part: SnapshotPart, fn: (row: number, bytes: Uint8Array) => void): void {
  part.noteAt.forEach((row, i) => {
    fn(row, part.noteBytes.subarray(part.noteEnds[i - 1] ?? 0, part.noteEnds[i]));
  });
}

/** A part's days back as entries (`updatedAt` is not kept: no reader of a record uses it). */
function unpackPart(part: SnapshotPart, out: Day[]): void {
  const width = part.keys.length;
  const notes = new Map<number, string>();
  forEachNote(part, (row, bytes) => notes.set(row, fromUtf8.decode(bytes)));
  for (let row = 0; row < part.days.length; row++) {
    const values: Record<string, DayValue> = {};
    for (let c = 0; c < width; c++) {
      const value = valueAt(part, row * width + c);
      if (value !== undefined) values[part.keys[c]] = value;
    }
    out.push([part.days[row], { values, note: notes.get(row) ?? null, updatedAt: 0 }]);
  }
}

/** Whether `value` is a part this code wrote, of a snapshot of `parts` parts. */
function isPart(value: unknown, parts?: number): value is SnapshotPart {
  const part = value as SnapshotPart | null;
  return part?.format === FORMAT && (parts === undefined || part.parts === parts);
}

/**
 * A stored snapshot's parts, given its parts as read (the head first), or null when it is
 * missing, of another format, or torn (a part from another build).
 */
export function snapshotParts(parts: unknown[]): SnapshotPart[] | null {
  const head = parts[0];
  if (!isPart(head) || parts.length < head.parts) return null;
  const out: SnapshotPart[] = [];
  for (let i = 0; i < head.parts; i++) {
    const part = parts[i];
    if (!isPart(part, head.parts) || part.version !== head.version) return null;
    if (part.otherWrites !== head.otherWrites) return null;
    out.push(part);
  }
  return out;
}

/** The days of a stored snapshot as entries (see `snapshotParts`), or null when unusable. */
export function decodeSnapshot(parts: unknown[]): Day[] | null {
  const usable = snapshotParts(parts);
  return usable && snapshotDays(usable);
}

/** The days of a usable snapshot's parts as entries. */
export function snapshotDays(parts: SnapshotPart[]): Day[] {
  const out: Day[] = [];
  for (const part of parts) unpackPart(part, out);
  return out;
}

/** A snapshot's days with the days written since: the changed days' entries as read. */
export interface PatchedSnapshot {
  parts: SnapshotPart[];
  /** The changed days; one absent from `read` was deleted. */
  changed: ReadonlySet<DayNumber>;
  read: ReadonlyMap<DayNumber, StoredEntry>;
}

/**
 * Every value of a patched snapshot, straight from the parts' typed arrays (no entry object a
 * day: building 1,095 of them was most of a cold load's time and garbage), each day once.
 */
export function visitPatched({ parts, changed, read }: PatchedSnapshot): DayVisitor {
  return (emit) => {
    for (const part of parts) {
      const width = part.keys.length;
      for (let row = 0; row < part.days.length; row++) {
        const day = part.days[row];
        if (changed.has(day)) continue;
        for (let c = 0; c < width; c++) {
          const value = valueAt(part, row * width + c);
          if (value !== undefined) emit(day, part.keys[c], value);
        }
      }
    }
    visitDays([...read].map(([day, entry]) => [day, entry.values]))(emit);
  };
}

/**
 * The notes of a patched snapshot by day, packed from the parts' UTF-8 as it is (no note decoded:
 * lib/record/day_notes.ts).
 */
export function patchedNotes({ parts, changed, read }: PatchedSnapshot): DayNotes {
  const pieces: PackedNote[] = [];
  for (const part of parts) {
    forEachNote(part, (row, bytes) => {
      const day = part.days[row];
      if (!changed.has(day)) pieces.push({ day, bytes });
    });
  }
  for (const [day, entry] of read) {
    if (entry.note) pieces.push({ day, bytes: utf8.encode(entry.note) });
  }
  return DayNotes.pack(pieces);
}

/** `days` (ascending) with the changed days replaced by their entries as read (absent: deleted). */
export function applyChanges(
  days: Day[],
  changed: DayNumber[],
  read: ReadonlyMap<DayNumber, StoredEntry>,
): Day[] {
  if (changed.length === 0) return days;
  const listed = new Set(changed);
  const out = days.filter(([day]) => !listed.has(day));
  for (const [day, entry] of read) out.push([day, entry]);
  return out.sort((a, b) => a[0] - b[0]);
}

/** The keys of a snapshot's parts from `first` to before `end`. */
export function partKeys(memberId: string, first: number, end: number): Deno.KvKey[] {
  return Array.from({ length: end - first }, (_, i) => keys.recordSnapshot(memberId, first + i));
}

/** The record version and the count of writes that changed no entry, as a snapshot is stamped. */
export interface Stamp {
  version: bigint;
  otherWrites: bigint;
}

/**
 * The days written since the snapshot was built, ascending (`"many"` once more than
 * `MAX_CHANGES`: the next load then reads every entry and rebuilds), and how many writes.
 */
export interface RecordChanges {
  days: DayNumber[] | "many";
  writes: number;
}

/** The list after a write of `day` (added to the write's commit by lib/record/store.ts). */
export function withChange(changes: RecordChanges | null, day: DayNumber): RecordChanges {
  const days = changes?.days ?? [];
  const writes = (changes?.writes ?? 0) + 1;
  if (days === "many" || days.includes(day)) return { days, writes };
  if (days.length >= MAX_CHANGES) return { days: "many", writes };
  return { days: [...days, day].sort((a, b) => a - b), writes };
}

/** Bumps the record version for a write that changes no entry, counted as such (see above). */
export function bumpOtherWrite(op: Deno.AtomicOperation, memberId: string): Deno.AtomicOperation {
  return op.sum(keys.recordVersion(memberId), 1n).sum(keys.recordOtherWrites(memberId), 1n);
}

/**
 * Whether the stored snapshot whose head is `head` holds every day not in `changes`: every bump of
 * the version since it was built was counted, by an entry write or another write.
 */
export function snapshotCurrent(head: unknown, now: Stamp, changes: RecordChanges | null) {
  if (!isPart(head)) return false;
  const bumps = now.version - BigInt(head.version);
  const counted = now.otherWrites - BigInt(head.otherWrites) + BigInt(changes?.writes ?? 0);
  return bumps === counted && changes?.days !== "many";
}

/** What a rebuild writes over. */
export interface SnapshotWrite {
  memberId: string;
  /** The record version entry read before any entry of `days` was read, and the stamp then. */
  versionEntry: Deno.KvEntryMaybe<Deno.KvU64>;
  stamp: Stamp;
  days: Day[];
  /** Parts the stored snapshot had (those beyond the new one's are deleted). */
  oldParts: number;
}

/**
 * Writes a new snapshot of `days` and empties the list of changed days, checked against the record
 * version read before the days were read (a write since makes it a no-op: the next load rebuilds).
 * A record too large for a snapshot is left to be read entry by entry. Answers whether it landed.
 */
export async function writeSnapshot(kv: Deno.Kv, w: SnapshotWrite): Promise<boolean> {
  const parts = encodeSnapshot(w.days, w.stamp);
  if (!parts) return false;
  const op = kv.atomic().check(w.versionEntry);
  parts.forEach((part, i) => op.set(keys.recordSnapshot(w.memberId, i), part));
  for (let i = parts.length; i < w.oldParts; i++) op.delete(keys.recordSnapshot(w.memberId, i));
  op.delete(keys.recordChanges(w.memberId));
  try {
    return (await op.commit()).ok;
  } catch {
    // Derived data, written on a read: a busy or slow KV (another process holding a KV file's
    // write lock, the KV deadline) must not fail the read that had the record in hand. The next
    // load rebuilds it.
    return false;
  }
}
