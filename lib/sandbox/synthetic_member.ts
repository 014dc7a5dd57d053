/**
 * The sandbox member "Sam Rivera (synthetic)", generated in code from the recipe of
 * domain-anchors §4: a frozen clock, one seeded mulberry32 PRNG per column, Box–Muller normals,
 * days walked oldest → newest, then the engineered days (vacation, sick day, hiking day, gaps,
 * skips, breaks) that make the golden answers exact. No stored fixture: the same code always yields
 * the same record, so every sandbox answer is reproducible and pinned in `golden_test.ts`.
 *
 * Draw discipline (our reading of "iterate days oldest→newest; no other randomness"): every column
 * consumes a fixed number of draws on every day of the history, even on days whose value is then
 * overridden or not logged. An engineered day therefore never reshuffles the random values of the
 * days after it.
 */

import { type DayNumber, parseDay, weekdayOf } from "../foundation/dates.ts";
import type { CoachInsight, Column, DayValue, MemberRecord } from "../record/types.ts";
import { analyseRecord, emptyFindings, mergeFindings } from "../coach/analyse.ts";

/** Who the sandbox member is and when the frozen sandbox clock stands. */
export const SYNTHETIC_MEMBER_PROFILE = Object.freeze({
  display_name: "Sam Rivera (synthetic)",
  timezone: "America/New_York",
  /** Member-local "today" of the frozen clock (a Wednesday). */
  today: "2026-03-18",
  /** 2026-03-18 09:30 in New York (EDT, UTC−4 since 2026-03-08). */
  now: "2026-03-18T13:30:00.000Z",
  /** First day of the history (a Monday): 185 days = 26 ISO weeks + Mon–Wed. */
  first_day: "2025-09-15",
});

/** Base seed of the per-column PRNGs; column `i` (recipe order) uses `SEED + SEED_STEP · i`. */
export const SEED = 20260318;
/** Seed stride between columns (a prime, so seeds never collide). */
export const SEED_STEP = 7919;

/**
 * mulberry32: a tiny, portable 32-bit PRNG; the same seed gives the same sequence in any language
 * with 32-bit integer arithmetic. Returns uniforms in [0, 1).
 */
export function mulberry32(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal by Box–Muller from two uniforms (the cosine half; the sine half is dropped). */
export function boxMuller(next: () => number): number {
  // 1 − u lies in (0, 1], so the logarithm is finite.
  const u1 = 1 - next();
  const u2 = next();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

const TODAY: DayNumber = parseDay(SYNTHETIC_MEMBER_PROFILE.today)!;
const FIRST: DayNumber = parseDay(SYNTHETIC_MEMBER_PROFILE.first_day)!;
const HISTORY_DAYS = TODAY - FIRST + 1;

/** Day `offset` relative to today (0 = today, −1 = yesterday). */
const at = (offset: number): DayNumber => TODAY + offset;

// Engineered days (offsets relative to today), domain-anchors §4.
const VACATION = { from: -40, to: -36 }; // 2026-02-06 … 2026-02-10
const HIKING_DAY = -38; // 2026-02-08
const SICK_DAY = -12; // 2026-03-06
const SICK_DAYS_WORKOUT = [-12, -11];
const WATER_GAP = { from: -20, to: -15 }; // 2026-02-26 … 2026-03-03, missing (not skip)
const MEDITATION_START = -75; // 2026-01-02
const MEDITATION_ZERO = [-43, -24]; // 2026-02-03, 2026-02-22
const MEDICATION_FALSE = [-150, -105, -42];
const MEDICATION_SKIP = -30; // 2026-02-16
const WORKOUT_SHORT_WEEK = parseDay("2026-01-05")!;
const WORKOUT_TOPUP_FROM = parseDay("2026-01-12")!;
const WORKOUT_GOAL_TIMES = 4;

const inVacation = (offset: number) => offset >= VACATION.from && offset <= VACATION.to;

/** Column keys in recipe order; the index is the PRNG index `i`. */
export const SYNTHETIC_COLUMN_ORDER = [
  "workout",
  "sleep_hours",
  "mood",
  "steps",
  "water_l",
  "weight_kg",
  "resting_hr",
  "meditation_min",
  "medication_taken",
] as const;

/** PRNG index of the extra missingness stream: the one after the nine columns. */
const MISSINGNESS_INDEX = SYNTHETIC_COLUMN_ORDER.length;

function column(
  partial:
    & Pick<Column, "key" | "label" | "type" | "direction" | "daily_agg" | "goal">
    & Partial<Column>,
): Column {
  return Object.freeze({
    unit: null,
    scale_min: null,
    scale_max: null,
    missing_policy: "breaks" as const,
    archived: false,
    ...partial,
    goal: partial.goal ? Object.freeze({ ...partial.goal }) : null,
  });
}

/** The nine columns with their metadata, in display (= recipe) order. */
export const SYNTHETIC_COLUMNS: readonly Column[] = Object.freeze([
  column({
    key: "workout",
    label: "Workout",
    type: "boolean",
    direction: "higher_better",
    daily_agg: "any",
    goal: { op: "true", value: null, per: "week", times: WORKOUT_GOAL_TIMES },
  }),
  column({
    key: "sleep_hours",
    label: "Sleep (dated by wake day)",
    type: "number",
    unit: "h",
    direction: "higher_better",
    daily_agg: "mean",
    goal: { op: "at_least", value: 7.5, per: "day", times: null },
  }),
  column({
    key: "mood",
    label: "Mood",
    type: "scale",
    scale_min: 1,
    scale_max: 5,
    direction: "higher_better",
    daily_agg: "mean",
    goal: null,
  }),
  column({
    key: "steps",
    label: "Steps",
    type: "integer",
    unit: "steps",
    direction: "higher_better",
    daily_agg: "sum",
    goal: { op: "at_least", value: 8000, per: "day", times: null },
  }),
  column({
    key: "water_l",
    label: "Water",
    type: "number",
    unit: "L",
    direction: "higher_better",
    daily_agg: "sum",
    goal: { op: "at_least", value: 2.0, per: "day", times: null },
  }),
  column({
    key: "weight_kg",
    label: "Weight (morning)",
    type: "number",
    unit: "kg",
    direction: "lower_better",
    daily_agg: "mean",
    goal: { op: "at_most", value: 80.0, per: "day", times: null },
    missing_policy: "neutral",
  }),
  column({
    key: "resting_hr",
    label: "Resting heart rate",
    type: "integer",
    unit: "bpm",
    direction: "lower_better",
    daily_agg: "mean",
    goal: null,
  }),
  column({
    key: "meditation_min",
    label: "Meditation",
    type: "integer",
    unit: "min",
    direction: "higher_better",
    daily_agg: "sum",
    goal: { op: "at_least", value: 10, per: "day", times: null },
  }),
  column({
    key: "medication_taken",
    label: "Medication taken",
    type: "boolean",
    direction: "higher_better",
    daily_agg: "any",
    goal: { op: "true", value: null, per: "day", times: null },
  }),
]);

const round1 = (x: number) => Math.round(x * 10) / 10;
const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const rngFor = (i: number) => mulberry32(SEED + SEED_STEP * i);

/** Per-column values indexed by history position `k` (0 = first day); `undefined` = missing. */
type Series = (DayValue | undefined)[];

function generateWorkout(): Series {
  const next = rngFor(0);
  const out: Series = new Array(HISTORY_DAYS);
  for (let k = 0; k < HISTORY_DAYS; k++) {
    const wd = weekdayOf(FIRST + k);
    const planned = wd === 0 || wd === 2 || wd === 4 || wd === 5;
    out[k] = next() < (planned ? 0.88 : 0.06);
  }
  const idx = (day: DayNumber) => day - FIRST;
  // Preference order when a week needs workouts added: planned days first, then the others.
  const fillOrder = [0, 2, 4, 5, 1, 3, 6];

  // Week of 2026-01-05: exactly two workouts, so the weekly streak breaks there. Keep the first
  // two drawn workouts and add planned days if fewer than two were drawn.
  let kept = 0;
  for (let wd = 0; wd < 7; wd++) {
    const k = idx(WORKOUT_SHORT_WEEK + wd);
    if (out[k] === true) out[k] = ++kept <= 2;
  }
  for (const wd of fillOrder) {
    if (kept >= 2) break;
    const k = idx(WORKOUT_SHORT_WEEK + wd);
    if (out[k] === false) {
      out[k] = true;
      kept++;
    }
  }

  for (let off = VACATION.from; off <= VACATION.to; off++) out[idx(at(off))] = "skip";
  for (const off of SICK_DAYS_WORKOUT) out[idx(at(off))] = "skip";

  // Every complete week from 2026-01-12 is topped up to its pro-rated target, so the current
  // weekly streak is exactly the nine weeks 2026-01-12 … 2026-03-15.
  for (let monday = WORKOUT_TOPUP_FROM; monday + 6 < TODAY; monday += 7) {
    let skips = 0, done = 0;
    for (let wd = 0; wd < 7; wd++) {
      const v = out[idx(monday + wd)];
      if (v === "skip") skips++;
      else if (v === true) done++;
    }
    const target = Math.ceil((WORKOUT_GOAL_TIMES * (7 - skips)) / 7);
    for (const wd of fillOrder) {
      if (done >= target) break;
      const k = idx(monday + wd);
      if (out[k] === false) {
        out[k] = true;
        done++;
      }
    }
  }

  // The current week so far: one workout (Monday), none on Tuesday; today is pending.
  out[idx(at(-2))] = true;
  out[idx(at(-1))] = false;
  out[idx(TODAY)] = undefined;
  return out;
}

const SLEEP_WEEKDAY_EFFECT = [-0.35, 0, 0, 0, 0, 0.7, 0.8];

/** Latent (unrounded, clamped) sleep per day; mood and resting HR are driven by it. */
function generateSleepLatent(): number[] {
  const next = rngFor(1);
  const out = new Array<number>(HISTORY_DAYS);
  for (let k = 0; k < HISTORY_DAYS; k++) {
    const day = FIRST + k;
    const offset = day - TODAY;
    const z = boxMuller(next);
    const ramp = 0.45 * clamp((offset + 60) / 20, 0, 1);
    const raw = 6.9 + SLEEP_WEEKDAY_EFFECT[weekdayOf(day)] + ramp + 0.5 * z;
    out[k] = offset === SICK_DAY ? 9.4 : clamp(raw, 4.0, 10.5);
  }
  return out;
}

function generateMood(sleep: number[], workout: Series): Series {
  const next = rngFor(2);
  const out: Series = new Array(HISTORY_DAYS);
  for (let k = 0; k < HISTORY_DAYS; k++) {
    const day = FIRST + k;
    const wd = weekdayOf(day);
    const z = boxMuller(next);
    const workoutYesterday = k > 0 && workout[k - 1] === true ? 1 : 0;
    const raw = 3.25 + 0.6 * (sleep[k] - 7) + 0.35 * workoutYesterday + 0.2 * (wd >= 5 ? 1 : 0) -
      0.3 * (wd === 0 ? 1 : 0) + 0.45 * z;
    out[k] = day - TODAY === SICK_DAY ? 2 : clamp(Math.round(raw), 1, 5);
  }
  out[TODAY - FIRST] = undefined; // pending at 09:30
  return out;
}

function generateSteps(workout: Series): Series {
  const next = rngFor(3);
  const out: Series = new Array(HISTORY_DAYS);
  for (let k = 0; k < HISTORY_DAYS; k++) {
    const day = FIRST + k;
    const wd = weekdayOf(day);
    const offset = day - TODAY;
    const z = boxMuller(next);
    const u = next();
    const base = 7200 + 1800 * (wd === 5 ? 1 : 0) - 1400 * (wd === 6 ? 1 : 0) +
      3300 * (workout[k] === true ? 1 : 0);
    let v = base * Math.exp(0.18 * z);
    if (inVacation(offset)) v = 15500 + 2000 * u;
    if (offset === HIKING_DAY) v = 24312;
    if (offset === SICK_DAY) v = 1450;
    out[k] = Math.round(v);
  }
  out[TODAY - FIRST] = undefined;
  return out;
}

function generateWater(workout: Series): Series {
  const next = rngFor(4);
  const out: Series = new Array(HISTORY_DAYS);
  for (let k = 0; k < HISTORY_DAYS; k++) {
    const z = boxMuller(next);
    const v = 1.85 + 0.45 * (workout[k] === true ? 1 : 0) + 0.3 * z;
    out[k] = round1(Math.max(0.5, v));
  }
  for (let off = WATER_GAP.from; off <= WATER_GAP.to; off++) out[at(off) - FIRST] = undefined;
  out[TODAY - FIRST] = undefined;
  return out;
}

function generateWeight(): Series {
  const next = rngFor(5);
  const out: Series = new Array(HISTORY_DAYS);
  for (let k = 0; k < HISTORY_DAYS; k++) {
    const wd = weekdayOf(FIRST + k);
    const z = boxMuller(next);
    const t = k / (HISTORY_DAYS - 1);
    const weighed = wd === 0 || wd === 2 || wd === 4 || wd === 6;
    out[k] = weighed ? round1(82.0 - 2.7 * t + 0.3 * (wd === 0 ? 1 : 0) + 0.3 * z) : undefined;
  }
  return out;
}

function generateRestingHr(sleep: number[]): Series {
  const next = rngFor(6);
  const out: Series = new Array(HISTORY_DAYS);
  for (let k = 0; k < HISTORY_DAYS; k++) {
    const z = boxMuller(next);
    const t = k / (HISTORY_DAYS - 1);
    const v = 63 - 4 * t + (sleep[k] < 6.2 ? 2.5 : 0) + 1.3 * z;
    out[k] = FIRST + k - TODAY === SICK_DAY ? 74 : Math.round(v);
  }
  return out;
}

function generateMeditation(): Series {
  const next = rngFor(7);
  const out: Series = new Array(HISTORY_DAYS);
  for (let k = 0; k < HISTORY_DAYS; k++) {
    const offset = FIRST + k - TODAY;
    const minutes = 10 + Math.floor(next() * 11);
    if (offset < MEDITATION_START) continue;
    out[k] = MEDITATION_ZERO.includes(offset) ? 0 : minutes;
  }
  out[TODAY - FIRST] = undefined;
  return out;
}

function generateMedication(): Series {
  const out: Series = new Array(HISTORY_DAYS);
  for (let k = 0; k < HISTORY_DAYS; k++) {
    const offset = FIRST + k - TODAY;
    out[k] = offset === MEDICATION_SKIP ? "skip" : !MEDICATION_FALSE.includes(offset);
  }
  return out;
}

/** Random missingness rates, checked in this order on every day (domain-anchors §4). */
const MISSINGNESS: readonly (readonly [string, number])[] = [
  ["sleep_hours", 0.03],
  ["mood", 0.04],
  ["steps", 0.02],
  ["water_l", 0.08],
  ["resting_hr", 0.03],
];

/**
 * Removes random entries. Never today (the recipe fixes what is logged at 09:30) and never an
 * engineered value: the sick day in any column, the vacation/hiking days in steps.
 */
function applyMissingness(series: Map<string, Series>): void {
  const next = rngFor(MISSINGNESS_INDEX);
  for (let k = 0; k < HISTORY_DAYS; k++) {
    const offset = FIRST + k - TODAY;
    for (const [key, rate] of MISSINGNESS) {
      const hit = next() < rate;
      if (!hit || offset === 0 || offset === SICK_DAY) continue;
      if (key === "steps" && inVacation(offset)) continue;
      series.get(key)![k] = undefined;
    }
  }
}

const NOTES: readonly (readonly [number, string])[] = [
  [VACATION.from, "Vacation starts (workouts excused)."],
  [HIKING_DAY, "Long hiking day on vacation."],
  [SICK_DAY, "Sick day: stayed in bed."],
  [SICK_DAY + 1, "Still recovering; workout excused."],
  [MEDICATION_SKIP, "Doctor-advised pause of medication."],
];

/** Generates the record without coach insights (they are computed from it by the tools). */
export function generateSyntheticRecord(): MemberRecord {
  const workout = generateWorkout();
  const sleepLatent = generateSleepLatent();
  const sleep: Series = sleepLatent.map(round1);
  const series = new Map<string, Series>([
    ["workout", workout],
    ["sleep_hours", sleep],
    ["mood", generateMood(sleepLatent, workout)],
    ["steps", generateSteps(workout)],
    ["water_l", generateWater(workout)],
    ["weight_kg", generateWeight()],
    ["resting_hr", generateRestingHr(sleepLatent)],
    ["meditation_min", generateMeditation()],
    ["medication_taken", generateMedication()],
  ]);
  applyMissingness(series);

  const values = new Map<string, Map<DayNumber, DayValue>>();
  for (const key of SYNTHETIC_COLUMN_ORDER) {
    const byDay = new Map<DayNumber, DayValue>();
    series.get(key)!.forEach((v, k) => {
      if (v !== undefined) byDay.set(FIRST + k, v);
    });
    values.set(key, byDay);
  }
  return {
    synthetic: true,
    timezone: SYNTHETIC_MEMBER_PROFILE.timezone,
    dayStartOffsetHours: 0,
    today: TODAY,
    now: SYNTHETIC_MEMBER_PROFILE.now,
    columns: [...SYNTHETIC_COLUMNS],
    values,
    notes: new Map(NOTES.map(([offset, text]) => [at(offset), text])),
    insights: [],
  };
}

/**
 * The sandbox member's coach findings: the coach itself (lib/coach/) at paid depth, run once on
 * the generated record as of its fixed `now` — the same code a real member's findings come from,
 * so every text and evidence call is the coach's own (issue #12).
 */
export function syntheticInsights(record: MemberRecord): CoachInsight[] {
  const analysis = analyseRecord(record, "paid");
  return mergeFindings(emptyFindings(), analysis, { tier: "paid", record });
}

let memo: MemberRecord | undefined;

/**
 * The synthetic sandbox member, generated once and shared. The object and its arrays are frozen;
 * the maps are typed read-only (a frozen `Map` could still be mutated), so treat them as such.
 */
export function syntheticMember(): MemberRecord {
  if (memo) return memo;
  const base = generateSyntheticRecord();
  const insights = syntheticInsights(base);
  memo = Object.freeze({
    ...base,
    columns: Object.freeze(base.columns) as Column[],
    insights: Object.freeze(insights.map((i) => Object.freeze(i))) as CoachInsight[],
  });
  return memo;
}
