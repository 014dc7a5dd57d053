/**
 * Streaks (domain-anchors §3.3 "Streak"): current, longest and top runs of a column, with skip days
 * neutral, "today can only help", the column's missing policy, and pro-rated weekly goals. This is
 * the benchmarked hot path: it walks integer day numbers once, keeps only the five best runs, and
 * formats nothing (the tool formats the few dates it returns).
 */

import { type DayNumber, isoWeekStart } from "../foundation/dates.ts";
import type { Column, DayValue } from "../record/types.ts";
import { columnExtent } from "./columns.ts";
import { type DayState, dayState } from "./common.ts";

/** A maximal run of qualifying days (or weeks). `length` counts qualifying units only. */
export interface Run {
  length: number;
  start: DayNumber;
  end: DayNumber;
}

/** What a streak is counted in. */
export type StreakUnit = "day" | "week" | "measurement";

/**
 * Whether the current run is alive. `active` (our addition to the §3.2 list) means alive with
 * nothing to do today: today is skipped, or a spot measurement simply has not been taken.
 */
export type StreakStatus = "active_today" | "active" | "at_risk" | "broken" | "never_started";

/** Today's state in this column. */
export type TodayState = "qualifies" | "pending" | "below_goal" | "skip";

/** The current ISO week of a weekly goal. */
export interface StreakWeek {
  start: DayNumber;
  end: DayNumber;
  done: number;
  target: number;
  remainingDays: number;
  state: "met" | "pending" | "skip";
}

/** Everything `get_streak` reports, in day numbers. */
export interface StreakAnalysis {
  unit: StreakUnit;
  /** `null` when there is no live run (length 0). */
  current: Run | null;
  status: StreakStatus;
  todayState: TodayState;
  longest: Run | null;
  isRecord: boolean;
  skippedDaysInCurrent: number;
  lastBroken: { date: DayNumber; reason: "missing" | "below_goal" } | null;
  /** Up to five longest runs (ties → most recent), newest first. */
  top: Run[];
  /** Weekly goals only: the ISO week containing `asOf`. */
  currentWeek: StreakWeek | null;
  /** First entry of the column (`null` when it has none). */
  firstDay: DayNumber | null;
}

/** How many top runs are kept. */
export const TOP_STREAKS = 5;

/** Inserts `run` into `top` (sorted by length desc, then end desc), keeping at most five. */
function offerRun(top: Run[], run: Run): void {
  let i = top.length;
  // A later run with equal length ranks first ("ties → most recent"); runs arrive oldest first.
  while (i > 0 && top[i - 1].length <= run.length) i--;
  if (i >= TOP_STREAKS) return;
  top.splice(i, 0, run);
  if (top.length > TOP_STREAKS) top.pop();
}

function finish(
  top: Run[],
  current: Run | null,
  rest: Omit<StreakAnalysis, "longest" | "isRecord" | "top" | "current">,
): StreakAnalysis {
  const longest = top.length > 0 ? top[0] : null;
  const newestFirst = top.slice().sort((a, b) => b.end - a.end);
  return {
    ...rest,
    current,
    longest,
    isRecord: current !== null && longest !== null && current.length >= longest.length,
    top: newestFirst,
  };
}

const NEVER: Omit<StreakAnalysis, "unit" | "todayState" | "currentWeek"> = {
  current: null,
  status: "never_started",
  longest: null,
  isRecord: false,
  skippedDaysInCurrent: 0,
  lastBroken: null,
  top: [],
  firstDay: null,
};

function todayStateOf(state: DayState): TodayState {
  return state === "missing" ? "pending" : state;
}

/**
 * Computes the streak of `column` as of day `asOf` ("today"), from the column's first entry.
 * Daily goals walk days; `per: "week"` goals walk ISO weeks with pro-rated targets.
 */
export function computeStreak(
  column: Column,
  series: ReadonlyMap<DayNumber, DayValue>,
  asOf: DayNumber,
): StreakAnalysis {
  if (column.goal?.per === "week") return weeklyStreak(column, series, asOf);
  const unit: StreakUnit = column.missing_policy === "neutral" ? "measurement" : "day";
  const todayState = todayStateOf(dayState(column, series.get(asOf)));
  const first = columnExtent(series).first;
  if (first === null || first > asOf) return { ...NEVER, unit, todayState, currentWeek: null };

  const missingBreaks = column.missing_policy === "breaks";
  const top: Run[] = [];
  let runLength = 0, runStart = 0, runEnd = 0, skips = 0;
  let everQualified = false;
  let lastBroken: StreakAnalysis["lastBroken"] = null;

  // A qualifying day extends the run (or starts one, with no skips inside it yet).
  const extend = (day: DayNumber) => {
    if (runLength === 0) {
      runStart = day;
      skips = 0;
    }
    runLength++;
    runEnd = day;
  };
  for (let day = first; day < asOf; day++) {
    const state = dayState(column, series.get(day));
    if (state === "qualifies") {
      extend(day);
    } else if (state === "skip") {
      if (runLength > 0) skips++;
    } else if (state === "below_goal" || missingBreaks) {
      if (runLength > 0) {
        offerRun(top, { length: runLength, start: runStart, end: runEnd });
        everQualified = true;
        lastBroken = { date: day, reason: state === "missing" ? "missing" : "below_goal" };
        runLength = 0;
      }
    }
  }
  // Today can only help: it joins the run when it qualifies and never breaks it.
  if (todayState === "qualifies") {
    extend(asOf);
  } else if (todayState === "skip" && runLength > 0) {
    skips++;
  }

  let current: Run | null = null;
  let status: StreakStatus;
  if (runLength > 0) {
    current = { length: runLength, start: runStart, end: runEnd };
    offerRun(top, current);
    if (todayState === "qualifies") status = "active_today";
    else if (todayState === "below_goal" || (todayState === "pending" && missingBreaks)) {
      status = "at_risk";
    } else status = "active";
  } else {
    status = everQualified ? "broken" : "never_started";
  }
  return finish(top, current, {
    unit,
    status,
    todayState,
    skippedDaysInCurrent: current ? skips : 0,
    lastBroken,
    currentWeek: null,
    firstDay: first,
  });
}

/** ceil(times × (7 − skips) / 7): the weekly target pro-rated for excused days. */
export function proratedWeeklyTarget(times: number, skipDays: number): number {
  return Math.ceil((times * (7 - skipDays)) / 7);
}

function weeklyStreak(
  column: Column,
  series: ReadonlyMap<DayNumber, DayValue>,
  asOf: DayNumber,
): StreakAnalysis {
  const times = column.goal!.times ?? 1;
  const todayState = todayStateOf(dayState(column, series.get(asOf)));
  const first = columnExtent(series).first;
  if (first === null || first > asOf) {
    return { ...NEVER, unit: "week", todayState, currentWeek: null };
  }

  const top: Run[] = [];
  let runLength = 0, runStart = 0, runEnd = 0;
  let everQualified = false;
  let lastBroken: StreakAnalysis["lastBroken"] = null;
  const thisWeek = isoWeekStart(asOf);
  let currentWeek: StreakWeek | null = null;

  for (let monday = isoWeekStart(first); monday <= thisWeek; monday += 7) {
    const { done, skipDays, logged } = tallyWeek(column, series, { monday, first, asOf });
    const target = proratedWeeklyTarget(times, skipDays);
    const isCurrent = monday === thisWeek;
    const met = skipDays < 7 && done >= target;

    if (isCurrent) {
      // Days still open this week: from today when today is not yet logged, never the skipped.
      let remainingDays = 0;
      for (let day = todayState === "pending" ? asOf : asOf + 1; day < monday + 7; day++) {
        if (series.get(day) !== "skip") remainingDays++;
      }
      const state = skipDays === 7 ? "skip" : met ? "met" : "pending";
      currentWeek = { start: monday, end: monday + 6, done, target, remainingDays, state };
      // The current week counts once met; otherwise it is pending and never breaks the run.
      if (!met) break;
    }
    if (skipDays === 7) continue;
    if (met) {
      if (runLength === 0) runStart = monday;
      runLength++;
      runEnd = Math.min(monday + 6, asOf);
    } else if (runLength > 0) {
      offerRun(top, { length: runLength, start: runStart, end: runEnd });
      everQualified = true;
      lastBroken = { date: monday, reason: logged === 0 ? "missing" : "below_goal" };
      runLength = 0;
    }
  }

  let current: Run | null = null;
  let status: StreakStatus;
  if (runLength > 0) {
    current = { length: runLength, start: runStart, end: runEnd };
    offerRun(top, current);
    status = currentWeek?.state === "met"
      ? "active_today"
      : currentWeek?.state === "skip"
      ? "active"
      : "at_risk";
  } else {
    status = everQualified ? "broken" : "never_started";
  }
  return finish(top, current, {
    unit: "week",
    status,
    todayState,
    skippedDaysInCurrent: current ? countSkips(series, current.start, asOf) : 0,
    lastBroken,
    currentWeek,
    firstDay: first,
  });
}

/** One ISO week of a weekly goal: days done, excused (skipped or before tracking) and logged. */
function tallyWeek(
  column: Column,
  series: ReadonlyMap<DayNumber, DayValue>,
  { monday, first, asOf }: { monday: DayNumber; first: DayNumber; asOf: DayNumber },
): { done: number; skipDays: number; logged: number } {
  let done = 0, skipDays = 0, logged = 0;
  for (let day = monday; day < monday + 7; day++) {
    // Days before the first entry were not tracked yet: excused like skips (pro-rated).
    if (day < first) {
      skipDays++;
      continue;
    }
    const state = dayState(column, series.get(day));
    if (state === "skip") skipDays++;
    else if (day <= asOf && state !== "missing") {
      logged++;
      if (state === "qualifies") done++;
    }
  }
  return { done, skipDays, logged };
}

function countSkips(series: ReadonlyMap<DayNumber, DayValue>, from: DayNumber, to: DayNumber) {
  let n = 0;
  for (let day = from; day <= to; day++) if (series.get(day) === "skip") n++;
  return n;
}

/** The day-level goal as a short phrase, e.g. "meditation_min ≥ 10 min" or "workout done". */
export function goalPhrase(column: Column): string {
  const goal = column.goal;
  // a yes/no column is done on a yes, goal or not (common.ts `dayState`)
  if (column.type === "boolean" || goal?.op === "true") return `${column.key} done`;
  if (!goal) return `any ${column.key} entry`;
  const op = goal.op === "at_least" ? "≥" : goal.op === "at_most" ? "≤" : "=";
  return `${column.key} ${op} ${goal.value}${column.unit ? ` ${column.unit}` : ""}`;
}

const rules = new WeakMap<Column, string>();

/** The streak rule for this column in one sentence (cached per column object). */
export function streakRule(column: Column): string {
  let rule = rules.get(column);
  if (rule) return rule;
  const goal = column.goal;
  if (goal?.per === "week") {
    const times = goal.times ?? 1;
    rule =
      `A week (Monday–Sunday) counts when it has at least ceil(${times} × (7 − skip days) / 7) days with ${
        goalPhrase(column)
      } (${times} in a full week); an all-skip week is neutral, a week short of its target breaks the run, and the current week counts once met and is pending until then.`;
  } else if (column.missing_policy === "neutral") {
    rule = `Each measurement counts when ${
      goalPhrase(column)
    }; days without a measurement and skip days are ignored, a measurement missing the goal breaks the run, and today counts only once it qualifies.`;
  } else if (!goal && column.type !== "boolean") {
    rule =
      `A day counts when ${column.key} has any logged value (a logging streak); skip days are neutral, a day with no entry breaks the run, and today counts once logged.`;
  } else {
    rule = `A day counts when ${
      goalPhrase(column)
    }; skip days are neutral, a missing or below-goal day breaks the run, and today counts only once it qualifies (until then the run is at risk, not broken).`;
  }
  rules.set(column, rule);
  return rule;
}
