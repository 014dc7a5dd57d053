/**
 * A member whose labels differ from their keys and include plurals, built so that the coach
 * writes every kind of finding (test support for lib/coach/prose_test.ts and the Coach page).
 */

import type { Column, DayValue, MemberRecord } from "../record/types.ts";
import { day, seededRandom, series, testColumn, testRecord } from "../analytics/_test_record.ts";

export const TODAY = day("2026-03-18"); // a Wednesday

/** Keys that are nowhere in any label, so a key in a sentence is a leak, never a label. */
export const COLUMNS: Column[] = [
  testColumn("zx", { label: "Glasses of water", daily_agg: "sum", direction: "neutral" }),
  testColumn("zy", { label: "Steps", type: "integer", daily_agg: "sum" }),
  testColumn("zn", { label: "Naps", unit: "min", type: "duration_min", daily_agg: "sum" }),
  testColumn("md", { label: "Mood", type: "scale", scale_min: 1, scale_max: 5 }),
  testColumn("wk", {
    label: "Workout",
    type: "boolean",
    goal: { op: "true", value: null, per: "week", times: 3 },
  }),
  testColumn("yg", {
    label: "Yoga",
    type: "boolean",
    goal: { op: "true", value: null, per: "week", times: 2 },
  }),
  testColumn("vt", {
    label: "Vitamins",
    type: "boolean",
    goal: { op: "true", value: null, per: "day", times: null },
  }),
  testColumn("fl", {
    label: "Flossing",
    type: "boolean",
    goal: { op: "true", value: null, per: "day", times: null },
  }),
  testColumn("tc", {
    label: "Cups of tea",
    type: "integer",
    daily_agg: "sum",
    goal: { op: "at_least", value: 4, per: "day", times: null },
  }),
  testColumn("pg", { label: "Pages read", type: "integer", daily_agg: "sum" }),
  testColumn("jr", { label: "Journal entries", type: "integer", daily_agg: "sum" }),
];

/**
 * 400 days built so that every kind of finding occurs: steps follow water a day later, naps rose
 * over the last half year (a trend and a change against a year ago), mood follows the weekend and
 * workouts, a weekly goal missed last week and another at risk this week, a daily habit at 7
 * days and one at risk, a tea goal missed, a spike in pages read yesterday, a journal that
 * stopped 10 days ago after 20 days (a gap, and a pair 1 day short of the coach's minimum).
 */
export function everyKindRecord(): MemberRecord {
  const u = seededRandom(2020);
  const n = () => Math.sqrt(-2 * Math.log(Math.max(u(), 1e-9))) * Math.cos(2 * Math.PI * u());
  const days = 400, water: number[] = [];
  for (let i = 0; i < days; i++) water.push(Math.max(0, Math.round(6 + 2 * n())));
  const done = Array.from({ length: days }, () => u() < 0.45);
  const workout = (d: number) => done[d - (TODAY - days + 1)] ?? false;
  const weekend = (d: number) => (d + 4) % 7 >= 5;
  const values: Record<string, Map<number, DayValue>> = {
    zx: series(TODAY, days, (_d, i) => water[i]),
    zy: series(
      TODAY,
      days,
      (_d, i) => i === 0 ? 8000 : Math.round(8000 + 900 * (water[i - 1] - 6) + 600 * n()),
    ),
    zn: series(TODAY, days, (_d, i) => Math.round(20 + Math.max(0, i - days + 180) / 6 + 4 * n())),
    md: series(TODAY, days, (d) =>
      Math.min(
        5,
        Math.max(
          1,
          Math.round(
            2.5 + (weekend(d) ? 1.5 : 0) +
              (workout(d) ? 0.8 : 0) + 0.4 * n(),
          ),
        ),
      )),
    // last week (Mon 2026-03-09 … Sun 03-15) only once
    wk: series(TODAY, days, (d) => d >= TODAY - 9 && d <= TODAY - 3 ? d === TODAY - 9 : workout(d)),
    // twice a week for five weeks, nothing yet this week
    yg: series(TODAY - 3, 35, (d) => (d + 4) % 7 === 1 || (d + 4) % 7 === 4),
    vt: series(TODAY, 7, () => true),
    fl: series(TODAY - 1, 9, () => true),
    tc: series(TODAY, 30, (d) => d >= TODAY - 9 && d <= TODAY - 3 ? 1 : 5),
    pg: series(TODAY - 1, 60, (_d, i) => i === 59 ? 400 : 20 + (i % 5)),
    jr: series(TODAY - 10, 20, () => 1),
  };
  return testRecord({ columns: COLUMNS, values });
}

/** What is wrong with a sentence's wording, if anything. */
export function wordingFaults(text: string): string[] {
  const faults: string[] = [];
  for (const c of COLUMNS) {
    if (new RegExp(`\\b${c.key}\\b`).test(text)) faults.push(`key "${c.key}"`);
  }
  const doubled = text.match(/\b(\w+)\s+\1\b/i);
  if (doubled) faults.push(`doubled "${doubled[0]}"`);
  const singular = text.match(/\b1 (more )?(days|weeks|times|entries)\b/);
  if (singular) faults.push(`plural "${singular[0]}"`);
  // a plural label with a singular verb ("Your steps is")
  const agree = text.match(
    /\b(steps|naps|vitamins|pages read|journal entries)\s+(is|was|has|follows|tends)\b/i,
  );
  if (agree) faults.push(`agreement "${agree[0]}"`);
  // a scale value without its scale ("mood … 4" instead of "4 of 5")
  return faults;
}
