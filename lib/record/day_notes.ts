/**
 * A cached record's notes, packed (issue #22). As a Map of strings, each note was a V8 string and
 * a hash-table slot in the collected heap: `deno task bench:big`'s heap snapshot with 2,000 active
 * members held 180,000 note strings (10.7 MB) and 7.9 MB of their Maps' tables, all traced by
 * every major collection and all rebuilt (decoded) on every cold load. Here the notes stay the
 * UTF-8 they are stored as in a record snapshot, in one buffer outside the collected heap, with
 * their days and where each ends; a note becomes a string only when it is read (`get`), and Today,
 * History and `get_entries` read a few days.
 *
 * It is a `ReadonlyMap<DayNumber, string>`, the type every reader takes (lib/record/types.ts),
 * iterating in ascending day order as a Map built from the KV's ordered listing did.
 */

import type { DayNumber } from "../foundation/dates.ts";

/** Bookkeeping of one `DayNotes` besides its arrays' bytes (the object and its three views). */
const NOTES_FIXED_BYTES = 400;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** A note as packed: its day and its UTF-8. */
export interface PackedNote {
  day: DayNumber;
  bytes: Uint8Array;
}

/** A record's notes by day, as UTF-8 in one buffer; each is decoded when read. */
export class DayNotes implements ReadonlyMap<DayNumber, string> {
  /** Ascending days with a note, and where each note ends in `#bytes`. */
  readonly #days: Int32Array;
  readonly #ends: Int32Array;
  readonly #bytes: Uint8Array;

  private constructor(days: Int32Array, ends: Int32Array, bytes: Uint8Array) {
    this.#days = days;
    this.#ends = ends;
    this.#bytes = bytes;
  }

  /**
   * The notes, copied into one buffer (the pieces may be views of a snapshot's parts, which are
   * not kept). Sorted by day when they are not in order; a later piece for a day replaces an
   * earlier one, and an empty note is no note.
   */
  static pack(pieces: PackedNote[]): DayNotes {
    const byDay = new Map<DayNumber, Uint8Array>();
    let ordered = true, last = -Infinity;
    for (const { day, bytes } of pieces) {
      if (day <= last) ordered = false;
      last = Math.max(last, day);
      if (bytes.length > 0) byDay.set(day, bytes);
      else byDay.delete(day);
    }
    const days = Int32Array.from(byDay.keys());
    if (!ordered) days.sort();
    const ends = new Int32Array(days.length);
    const out = new Uint8Array(days.reduce((n, day) => n + byDay.get(day)!.length, 0));
    let at = 0;
    days.forEach((day, i) => {
      const bytes = byDay.get(day)!;
      out.set(bytes, at);
      ends[i] = at += bytes.length;
    });
    return new DayNotes(days, ends, out);
  }

  /** The notes of `[day, note]` pairs (an entry listing, or a record built in memory). */
  static of(notes: Iterable<[DayNumber, string]>): DayNotes {
    return DayNotes.pack([...notes].map(([day, note]) => ({ day, bytes: utf8.encode(note) })));
  }

  get size(): number {
    return this.#days.length;
  }

  /** Bytes the notes hold: their arrays and `NOTES_FIXED_BYTES` (the record cache's bound). */
  get bytes(): number {
    return NOTES_FIXED_BYTES + this.#days.byteLength + this.#ends.byteLength +
      this.#bytes.byteLength;
  }

  /** The index of `day` in `#days`, or -1. */
  #find(day: DayNumber): number {
    const days = this.#days;
    let lo = 0, hi = days.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (days[mid] === day) return mid;
      if (days[mid] < day) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  #at(i: number): string {
    return fromUtf8.decode(this.#bytes.subarray(i === 0 ? 0 : this.#ends[i - 1], this.#ends[i]));
  }

  get(day: DayNumber): string | undefined {
    const i = this.#find(day);
    return i < 0 ? undefined : this.#at(i);
  }

  has(day: DayNumber): boolean {
    return this.#find(day) >= 0;
  }

  forEach(
    fn: (note: string, day: DayNumber, map: ReadonlyMap<DayNumber, string>) => void,
    thisArg?: unknown,
  ): void {
    for (let i = 0; i < this.#days.length; i++) fn.call(thisArg, this.#at(i), this.#days[i], this);
  }

  *#pairs(): Generator<[DayNumber, string], undefined> {
    for (let i = 0; i < this.#days.length; i++) yield [this.#days[i], this.#at(i)];
  }

  // Generators are iterator objects with the iterator helpers a MapIterator has (ES2025
  // Iterator.prototype); the casts only name that type (as in `DaySeries`).
  entries(): MapIterator<[DayNumber, string]> {
    return this.#pairs() as unknown as MapIterator<[DayNumber, string]>;
  }

  keys(): MapIterator<DayNumber> {
    return this.#days.values() as unknown as MapIterator<DayNumber>;
  }

  values(): MapIterator<string> {
    return this.#pairs().map(([, note]) => note) as unknown as MapIterator<string>;
  }

  [Symbol.iterator](): MapIterator<[DayNumber, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return "DayNotes";
  }
}
