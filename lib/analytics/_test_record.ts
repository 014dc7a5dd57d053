/**
 * Small hand-built member records for unit tests of the analytics tools (not used at run time).
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { type DayNumber, formatDay, parseDay } from "../foundation/dates.ts";
import type { ToolDefinition } from "../tools/define_tool.ts";
import type { Column, DayValue, MemberRecord } from "../record/types.ts";

/** A column with neutral defaults (number, higher_better, no goal) overridden by `extra`. */
export function testColumn(key: string, extra: Partial<Column> = {}): Column {
  return {
    key,
    label: key.replaceAll("_", " "),
    type: "number",
    unit: null,
    scale_min: null,
    scale_max: null,
    direction: "higher_better",
    daily_agg: "mean",
    goal: null,
    missing_policy: "breaks",
    archived: false,
    ...extra,
  };
}

/** Parses a test date, failing loudly on a typo. */
export function day(text: string): DayNumber {
  const d = parseDay(text);
  if (d === null) throw new Error(`bad test date ${text}`);
  return d;
}

/**
 * Values for the `count` days ending `last` (oldest first): `valueAt(day, i)` returns the value
 * of day i (0 = oldest), or `undefined` to leave the day missing.
 */
export function series(
  last: DayNumber,
  count: number,
  valueAt: (day: DayNumber, i: number) => DayValue | undefined,
): Map<DayNumber, DayValue> {
  const out = new Map<DayNumber, DayValue>();
  for (let i = 0; i < count; i++) {
    const d = last - count + 1 + i;
    const v = valueAt(d, i);
    if (v !== undefined) out.set(d, v);
  }
  return out;
}

/** Options of `testRecord`. */
export interface TestRecordOptions {
  today?: string;
  columns: Column[];
  values: Record<string, Map<DayNumber, DayValue>>;
}

/** A member record in New York time with the given columns and values. */
export function testRecord(options: TestRecordOptions): MemberRecord {
  const today = day(options.today ?? "2026-03-18");
  return {
    synthetic: true,
    timezone: "America/New_York",
    dayStartOffsetHours: 0,
    today,
    now: `${formatDay(today)}T13:30:00.000Z`,
    columns: options.columns,
    values: new Map(Object.entries(options.values)),
    notes: new Map(),
    insights: [],
  };
}

/** A seeded uniform generator in [0, 1) (mulberry32), so test data is reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Asserts that `result` is exactly what `tool.output` describes: zod accepts it, ajv accepts it
 * against the published JSON Schema, and it survives a JSON round trip unchanged (so no NaN,
 * Infinity or undefined slipped in).
 */
export function assertValidResult(tool: ToolDefinition, result: unknown): void {
  tool.output.parse(result);
  let validate = validators.get(tool.name);
  if (!validate) {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.output, {
      target: "draft-2020-12",
      io: "output",
    }) as Record<string, unknown>;
    validate = ajv.compile(schema);
    validators.set(tool.name, validate);
  }
  assert.ok(validate(result), `${tool.name}: ${JSON.stringify(validate.errors)}`);
  assert.deepEqual(JSON.parse(JSON.stringify(result)), result);
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validators = new Map<string, ValidateFunction>();
