/**
 * One column's values of a cached record, packed by day (issue #22). A Map kept a hash-table slot
 * of 28 bytes per day and a boxed 16-byte number per fractional value (~400 KiB for three years of
 * 12 columns); a JS array of the span still took 8 bytes a day in the V8 heap, so 64 MiB held
 * about 1,100 of 2,000 active members and every other visit rebuilt a record (and the collector
 * traced and moved it). Here a column is two typed arrays over its span of days, outside the
 * collected heap (every column of a record cut from one buffer, `Arena`):
 *
 * - `codes`, one byte a day (`ValueTag`): missing, a number, `true`, `false` or `"skip"`;
 * - `nums`, only when the column holds numbers: each number as the narrowest integer array that
 *   holds it exactly times a power of ten (1–1,000), else as a double. Steps, a 1–5 mood, a
 *   quarter-hour sleep or a weight in tenths of a kg take one or two bytes, not eight.
 *
 * Every number reads back as the very double that was stored: a column whose numbers do not all
 * come back exactly from their scaled integers is kept as doubles (`buildSeries` checks each).
 *
 * It is a `ReadonlyMap<DayNumber, DayValue>`, the type every tool reads (lib/record/types.ts), and
 * iterates in ascending day order, as the Map built from the KV's ordered listing did.
 */

import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "./types.ts";

/**
 * A column is kept dense while its span of days is at most this many times its logged days plus
 * `SPARSE_SLACK`: a column logged once in 1990 and once today stays a Map (even a byte a day
 * would be 13,000 bytes of empty days).
 */
const MAX_SPAN_PER_VALUE = 4;
const SPARSE_SLACK = 64;
/** About 137 years: a longer span is kept as a Map. */
const MAX_SPAN = 50_000;

/**
 * What a day holds, as one byte: a `DaySeries`' `codes` and a record snapshot's `tags`
 * (lib/record/record_snapshot.ts) both store it, so a change here is a new `SNAPSHOT_FORMAT`.
 */
export const ValueTag = { Missing: 0, Number: 1, True: 2, False: 3, Skip: 4 } as const;

/** The tag of a logged value. */
export function tagOf(value: DayValue): number {
  if (typeof value === "number") return ValueTag.Number;
  return value === true ? ValueTag.True : value === false ? ValueTag.False : ValueTag.Skip;
}

/** The value a tag other than `Number` stands for (`undefined`: missing). */
export function untagged(tag: number): DayValue | undefined {
  return tag === ValueTag.True
    ? true
    : tag === ValueTag.False
    ? false
    : tag === ValueTag.Skip
    ? "skip"
    : undefined;
}

/** The typed arrays a column's scaled numbers may be kept in, narrowest first. */
type Nums = Int8Array | Int16Array | Int32Array | Float64Array;

/** Decimal places tried for a number, beyond which it is kept as a double. */
const MAX_PLACES = 3;
const NOT_DECIMAL = MAX_PLACES + 1;

/** Heap and bookkeeping of one series besides its arrays' bytes (`scripts/measure_record_cache.ts`). */
const SERIES_FIXED_BYTES = 400;

/** A column's values from `first` on, one code a day; missing days read as `undefined`. */
export class DaySeries implements ReadonlyMap<DayNumber, DayValue> {
  readonly #first: DayNumber;
  readonly #codes: Uint8Array;
  readonly #nums: Nums | null;
  readonly #scale: number;
  readonly size: number;

  constructor(init: { first: DayNumber; codes: Uint8Array; nums: Nums | null; scale: number }) {
    this.#first = init.first;
    this.#codes = init.codes;
    this.#nums = init.nums;
    this.#scale = init.scale;
    let size = 0;
    for (const code of init.codes) if (code !== ValueTag.Missing) size++;
    this.size = size;
  }

  /** Bytes the series holds: its arrays and `SERIES_FIXED_BYTES` (the cache's bound). */
  get bytes(): number {
    return SERIES_FIXED_BYTES + this.#codes.byteLength + (this.#nums?.byteLength ?? 0);
  }

  /** Days from the first logged to the last (the span the arrays cover). */
  get span(): number {
    return this.#codes.length;
  }

  #at(i: number): DayValue | undefined {
    const tag = this.#codes[i];
    if (tag !== ValueTag.Number) return untagged(tag);
    const n = this.#nums![i];
    return this.#scale === 1 ? n : n / this.#scale;
  }

  get(day: DayNumber): DayValue | undefined {
    const i = day - this.#first;
    return i >= 0 && i < this.#codes.length ? this.#at(i) : undefined;
  }

  has(day: DayNumber): boolean {
    const i = day - this.#first;
    return i >= 0 && i < this.#codes.length && this.#codes[i] !== ValueTag.Missing;
  }

  forEach(
    fn: (value: DayValue, day: DayNumber, map: ReadonlyMap<DayNumber, DayValue>) => void,
    thisArg?: unknown,
  ): void {
    const codes = this.#codes;
    for (let i = 0; i < codes.length; i++) {
      if (codes[i] !== ValueTag.Missing) fn.call(thisArg, this.#at(i)!, this.#first + i, this);
    }
  }

  *#pairs(): Generator<[DayNumber, DayValue], undefined> {
    const codes = this.#codes;
    for (let i = 0; i < codes.length; i++) {
      if (codes[i] !== ValueTag.Missing) yield [this.#first + i, this.#at(i)!];
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

/** Whether a column of `size` values from `first` to `last` is kept dense. */
function denseFits(first: DayNumber, last: DayNumber, size: number): boolean {
  const span = last - first + 1;
  return span <= MAX_SPAN && span <= MAX_SPAN_PER_VALUE * size + SPARSE_SLACK;
}

/** A stored day's values, as a caller with whole entries passes them (ascending days). */
export type DayValues = readonly [DayNumber, Readonly<Record<string, DayValue>>];

/** Hands every (day, column, value) of a record to `emit`, each day at most once per column. */
export type DayVisitor = (emit: (day: DayNumber, key: string, value: DayValue) => void) => void;

/** The visitor of whole entries. */
export function visitDays(days: readonly DayValues[]): DayVisitor {
  return (emit) => {
    for (const [day, values] of days) {
      for (const key in values) emit(day, key, values[key]);
    }
  };
}

/**
 * Every column's series from the member's entries: a `DaySeries` for each column dense enough, a
 * Map (ascending days) for a sparse one. Values of keys that are not columns are left out.
 */
export function buildSeries(
  columnKeys: readonly string[],
  days: readonly DayValues[],
): Map<string, ReadonlyMap<DayNumber, DayValue>> {
  return seriesOf(columnKeys, visitDays(days));
}

/** As `buildSeries`, from a visitor (lib/record/record_snapshot.ts reads packed parts through one). */
export function seriesOf(
  columnKeys: readonly string[],
  visit: DayVisitor,
): Map<string, ReadonlyMap<DayNumber, DayValue>> {
  const shapes = new Map(columnKeys.map((k) => [k, new Shape()]));
  visit((day, key, value) => shapes.get(key)?.see(day, value));
  const arena = new Arena([...shapes.values()].reduce((n, shape) => n + shape.bytes(), 0));
  const fills = new Map<string, Fill>();
  for (const [key, shape] of shapes) fills.set(key, shape.fill(arena));
  visit((day, key, value) => fills.get(key)?.put(day, value));
  const out = new Map<string, ReadonlyMap<DayNumber, DayValue>>();
  for (const [key, fill] of fills) {
    // A number the scaled integers did not give back exactly: the column again, as doubles.
    if (fill.inexact) {
      const wide = shapes.get(key)!.fill(new Arena(0), true);
      visit((day, k, value) => k === key && wide.put(day, value));
      out.set(key, wide.done());
    } else out.set(key, fill.done());
  }
  return out;
}

/** A column's first pass: its span, how many values, and what its numbers need. */
class Shape {
  first = 0;
  last = 0;
  size = 0;
  numbers = 0;
  min = Infinity;
  max = -Infinity;
  places = 0;

  see(day: DayNumber, value: DayValue): void {
    if (this.size++ === 0) this.first = this.last = day;
    if (day < this.first) this.first = day;
    if (day > this.last) this.last = day;
    if (typeof value !== "number") return;
    this.numbers++;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    if (this.places < NOT_DECIMAL) this.places = Math.max(this.places, decimalPlaces(value));
  }

  /** Whether the column is kept as dense arrays (else as a Map). */
  get dense(): boolean {
    return this.size > 0 && denseFits(this.first, this.last, this.size);
  }

  /** Bytes of the dense arrays `fill` cuts from an arena (with room to align them), else 0. */
  bytes(): number {
    if (!this.dense) return 0;
    const span = this.last - this.first + 1;
    const nums = this.numbers === 0 ? 0 : this.#numsType().type.BYTES_PER_ELEMENT * span;
    return span + nums + ALIGN;
  }

  /**
   * The second pass's target: dense arrays cut from `arena` (`wide`: numbers as doubles, in
   * arrays of their own), or a Map when sparse.
   */
  fill(arena: Arena, wide = false): Fill {
    if (!this.dense) return new MapFill();
    const span = this.last - this.first + 1;
    const codes = arena.take(Uint8Array, span);
    if (this.numbers === 0) {
      return new DenseFill({ first: this.first, codes, nums: null, scale: 1 });
    }
    const { type, scale } = wide ? { type: Float64Array, scale: 1 } : this.#numsType();
    return new DenseFill({ first: this.first, codes, nums: arena.take(type, span), scale });
  }

  /** The narrowest integer array holding the numbers times their scale, or doubles. */
  #numsType(): { type: NumsType; scale: number } {
    const doubles = { type: Float64Array, scale: 1 };
    if (this.places >= NOT_DECIMAL) return doubles;
    const scale = 10 ** this.places;
    const [lo, hi] = [Math.round(this.min * scale), Math.round(this.max * scale)];
    if (lo >= -128 && hi <= 127) return { type: Int8Array, scale };
    if (lo >= -32_768 && hi <= 32_767) return { type: Int16Array, scale };
    if (lo >= -(2 ** 31) && hi < 2 ** 31) return { type: Int32Array, scale };
    return doubles;
  }
}

/** The typed-array types a column's numbers are kept in. */
type NumsType =
  | typeof Int8Array
  | typeof Int16Array
  | typeof Int32Array
  | typeof Float64Array;

/** The widest element, and so the most padding one array needs before it. */
const ALIGN = 8;

/**
 * One record's column arrays, cut from one buffer (issue #22): 2,000 cached records of 8–12
 * columns were 31,000 buffers, each with its own allocation and the collector's bookkeeping; now
 * they are one buffer a record. A view keeps the whole buffer alive, and a record's columns live
 * and die together. An arena too small for what is taken gives arrays of their own.
 */
class Arena {
  readonly #buffer: ArrayBuffer;
  #at = 0;

  constructor(bytes: number) {
    this.#buffer = new ArrayBuffer(bytes);
  }

  take<T extends NumsType | typeof Uint8Array>(type: T, length: number): InstanceType<T> {
    const size = type.BYTES_PER_ELEMENT;
    const at = Math.ceil(this.#at / size) * size;
    if (at + length * size > this.#buffer.byteLength) return new type(length) as InstanceType<T>;
    this.#at = at + length * size;
    return new type(this.#buffer, at, length) as InstanceType<T>;
  }
}

/**
 * The fewest decimal places (0–3) that give `n` back from an integer, or `NOT_DECIMAL`: 7.25 → 2,
 * 0.1 + 0.2 → NOT_DECIMAL. -0 is kept as a double (an integer array would give back 0).
 */
function decimalPlaces(n: number): number {
  if (Object.is(n, -0) || !Number.isFinite(n)) return NOT_DECIMAL;
  for (let places = 0, scale = 1; places <= MAX_PLACES; places++, scale *= 10) {
    if (Math.round(n * scale) / scale === n) return places;
  }
  return NOT_DECIMAL;
}

interface Fill {
  /** Set when a number did not survive its scaled integer (the column is rebuilt as doubles). */
  inexact: boolean;
  put(day: DayNumber, value: DayValue): void;
  done(): ReadonlyMap<DayNumber, DayValue>;
}

class DenseFill implements Fill {
  inexact = false;
  readonly first: DayNumber;
  readonly nums: Nums | null;
  readonly scale: number;
  readonly #codes: Uint8Array;

  constructor(init: { first: DayNumber; codes: Uint8Array; nums: Nums | null; scale: number }) {
    this.first = init.first;
    this.nums = init.nums;
    this.scale = init.scale;
    this.#codes = init.codes;
  }

  put(day: DayNumber, value: DayValue): void {
    const i = day - this.first;
    if (typeof value === "number") {
      const stored = this.scale === 1 ? value : Math.round(value * this.scale);
      this.nums![i] = stored;
      const back = this.scale === 1 ? this.nums![i] : this.nums![i] / this.scale;
      if (back !== value && !Number.isNaN(value)) this.inexact = true;
    }
    this.#codes[i] = tagOf(value);
  }

  done(): DaySeries {
    return new DaySeries({
      first: this.first,
      codes: this.#codes,
      nums: this.nums,
      scale: this.scale,
    });
  }
}

class MapFill implements Fill {
  inexact = false;
  readonly #pairs: [DayNumber, DayValue][] = [];

  put(day: DayNumber, value: DayValue): void {
    this.#pairs.push([day, value]);
  }

  done(): Map<DayNumber, DayValue> {
    return new Map(this.#pairs.sort((a, b) => a[0] - b[0]));
  }
}
