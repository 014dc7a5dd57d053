/**
 * One column's values of a cached record as a dense array indexed by day (issue #22). A Map kept
 * a hash-table slot of 28 bytes per day (up to twice the days, its capacity being a power of two)
 * and a boxed 16-byte number per fractional value; a three-year record of 12 columns took ~400 KiB,
 * so 64 MiB held ~160 of them and 1,000 active members reloaded their records cold. A JS array
 * from the column's first to its last day takes one 8-byte slot a day: V8 keeps a column of
 * numbers as unboxed doubles, and only a column that also holds `true`/`false`/`"skip"` boxes its
 * fractional numbers. A missing day is a hole, which reads as `undefined`, as a Map's absent key.
 *
 * It is a `ReadonlyMap<DayNumber, DayValue>`, the type every tool reads (lib/record/types.ts), and
 * iterates in ascending day order, as the Map built from the KV's ordered listing did.
 */

import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "./types.ts";

/**
 * A column is kept dense while its span of days is at most this many times its logged days plus
 * `SPARSE_SLACK`: a column logged once in 1990 and once today stays a Map (an array of its span
 * would take 8 bytes for each of 13,000 empty days).
 */
const MAX_SPAN_PER_VALUE = 4;
const SPARSE_SLACK = 64;
/** V8 preallocates `new Array(n)` as fast holey elements only below 100,000 (kInitialMaxFastElementArray). */
const MAX_SPAN = 50_000;

/** A column's values from `first` on, one slot a day; holes are missing days. */
export class DaySeries implements ReadonlyMap<DayNumber, DayValue> {
  readonly #first: DayNumber;
  readonly #slots: (DayValue | undefined)[];
  readonly size: number;

  constructor(first: DayNumber, slots: (DayValue | undefined)[], size: number) {
    this.#first = first;
    this.#slots = slots;
    this.size = size;
  }

  /** Slots the array holds (its span of days), for the cache's byte estimate. */
  get span(): number {
    return this.#slots.length;
  }

  get(day: DayNumber): DayValue | undefined {
    return this.#slots[day - this.#first];
  }

  has(day: DayNumber): boolean {
    return this.get(day) !== undefined;
  }

  forEach(
    fn: (value: DayValue, day: DayNumber, map: ReadonlyMap<DayNumber, DayValue>) => void,
    thisArg?: unknown,
  ): void {
    const slots = this.#slots;
    for (let i = 0; i < slots.length; i++) {
      const value = slots[i];
      if (value !== undefined) fn.call(thisArg, value, this.#first + i, this);
    }
  }

  *#pairs(): Generator<[DayNumber, DayValue], undefined> {
    const slots = this.#slots;
    for (let i = 0; i < slots.length; i++) {
      const value = slots[i];
      if (value !== undefined) yield [this.#first + i, value];
    }
  }

  // Generators are iterator objects with the iterator helpers a MapIterator has (ES2025
  // Iterator.prototype); the casts only name that type.
  entries(): MapIterator<[DayNumber, DayValue]> {
    return this.#pairs() as unknown as MapIterator<[DayNumber, DayValue]>;
  }

  keys(): MapIterator<DayNumber> {
    return this.#pairs().map(([day]) => day) as unknown as MapIterator<DayNumber>;
  }

  values(): MapIterator<DayValue> {
    return this.#pairs().map(([, value]) => value) as unknown as MapIterator<DayValue>;
  }

  [Symbol.iterator](): MapIterator<[DayNumber, DayValue]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return "DaySeries";
  }
}

/** Whether a column of `size` values from `first` to `last` is kept as a dense array. */
function denseFits(first: DayNumber, last: DayNumber, size: number): boolean {
  const span = last - first + 1;
  return span <= MAX_SPAN && span <= MAX_SPAN_PER_VALUE * size + SPARSE_SLACK;
}

/** A stored day's values, as `readRecordBase` passes them (ascending days). */
export type DayValues = readonly [DayNumber, Readonly<Record<string, DayValue>>];

/**
 * Every column's series from the member's entries, given in ascending day order: a `DaySeries`
 * for each column dense enough, a Map for a sparse one. Values of keys that are not columns are
 * left out, as before.
 */
export function buildSeries(
  columnKeys: readonly string[],
  days: readonly DayValues[],
): Map<string, ReadonlyMap<DayNumber, DayValue>> {
  const bounds = new Map(
    columnKeys.map((k) => [k, { first: 0, last: 0, size: 0, numbers: true }]),
  );
  for (const [day, values] of days) {
    for (const key in values) {
      const b = bounds.get(key);
      if (!b) continue;
      if (b.size++ === 0) b.first = day;
      b.last = day;
      if (typeof values[key] !== "number") b.numbers = false;
    }
  }
  const out = new Map<string, ReadonlyMap<DayNumber, DayValue>>();
  const fill = new Map<string, (day: DayNumber, value: DayValue) => void>();
  for (const [key, b] of bounds) {
    if (b.size > 0 && denseFits(b.first, b.last, b.size)) {
      const span = b.last - b.first + 1;
      const slots = b.numbers ? numberSlots(span) : mixedSlots(span);
      out.set(key, new DaySeries(b.first, slots, b.size));
      // Separate stores for the two kinds (see `numberSlots`).
      fill.set(
        key,
        b.numbers
          ? (day, value) => slots[day - b.first] = value
          : (day, value) => slots[day - b.first] = value,
      );
    } else {
      const map = new Map<DayNumber, DayValue>();
      out.set(key, map);
      fill.set(key, (day, value) => map.set(day, value));
    }
  }
  for (const [day, values] of days) {
    for (const key in values) fill.get(key)?.(day, values[key]);
  }
  return out;
}

/*
 * Two allocation sites and two stores on purpose: V8 keeps feedback per site and per store
 * instruction, and a store that had written `true` into one column's array turned every later
 * array it wrote a fraction into into generic elements, boxing each number: 23 bytes a day for a
 * column of fractions, not 8 (measured on 365-day series).
 */

/** An array that will hold numbers only: V8 keeps them as unboxed doubles. */
function numberSlots(span: number): (DayValue | undefined)[] {
  return new Array(span);
}

/** An array that will hold booleans or "skip" too: generic elements. */
function mixedSlots(span: number): (DayValue | undefined)[] {
  return new Array(span);
}
