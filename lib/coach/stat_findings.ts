/**
 * Sentences for what survived the screen (lib/coach/screen.ts). Each one quotes the numbers of
 * the tool call it cites, run here on the same record, so its evidence reproduces it exactly.
 * Pattern (statistics.md §8): what + direction + size in units + period + how sure + what it is not.
 */

import { formatDay, isoWeekStart, parseDay } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import { reportP } from "../analytics/adjust.ts";
import { phraseOf, plural, valueText } from "../analytics/_wording.ts";
import { callTool } from "./evidence.ts";
import type { Draft } from "./draft.ts";
import {
  COACH_DETREND,
  COACH_METHOD,
  MIN_COACH_PAIRS,
  type PairTest,
  type Passed,
  type TrendTest,
  type Unlock,
  type WeekdayTest,
  type YearTest,
} from "./screen.ts";

/** How sure the coach is, from its own q over every test of the pass. */
function sureness(q: number, testsRun: number): string {
  const word = q <= 0.01 ? "Confident" : q <= 0.05 ? "Fairly confident" : "Tentative";
  return `${word} (q ${reportP(q).text} after a Benjamini–Yekutieli correction over the ` +
    `${testsRun} tests the coach ran)`;
}

function correlationDraft(record: MemberRecord, t: PairTest & { q: number }, m: number): Draft {
  const args = {
    metric_a: t.a.key,
    metric_b: t.b.key,
    lag_days: t.lag,
    start: formatDay(t.range.start),
    end: formatDay(t.range.end),
    method: COACH_METHOD,
    detrend: COACH_DETREND,
  };
  const call = callTool(record, "get_correlation", args);
  const r = call.result;
  const when = t.lag === 0
    ? "on the same day"
    : t.lag === 1
    ? "the next day"
    : `${t.lag} days later`;
  return {
    type: "correlation",
    priority: 2,
    metrics: [t.a.key, t.b.key],
    detail: `lag=${t.lag}`,
    period: formatDay(isoWeekStart(record.today)),
    text: `${r.sentence} From ${args.start} to ${args.end} (${plural(r.n_pairs, "day")} with ` +
      `${phraseOf(t.a)} and ${phraseOf(t.b)} ${when} both logged) the correlation is ` +
      `${r.r}, with your weekday habits taken out first. ${sureness(t.q, m)}; an association, ` +
      `not proof of cause.`,
    evidence: call.evidence(["r", "n_pairs", "p_value", "lag_days"]),
    weight: Math.abs(t.c.r),
  };
}

/**
 * A relationship whose leading side is a yes/no column reads better as a factor effect: the
 * outcome's mean on days with and without (statistics.md §8). The decision is still the
 * screen's test; `get_factor_effect` supplies the plain-language numbers.
 */
function factorDraft(record: MemberRecord, t: PairTest & { q: number }, m: number): Draft | null {
  const [factor, outcome] = t.a.type === "boolean"
    ? [t.a, t.b]
    : t.lag === 0 && t.b.type === "boolean"
    ? [t.b, t.a]
    : [null, null];
  if (!factor || !outcome || outcome.type === "boolean") return null;
  const args = {
    factor: factor.key,
    outcome: outcome.key,
    lag_days: t.lag,
    start: formatDay(t.range.start),
    end: formatDay(t.range.end),
  };
  const call = callTool(record, "get_factor_effect", args);
  const r = call.result;
  if (r.with.mean === null || r.without.mean === null) return null;
  const when = t.lag === 0 ? "on days with" : t.lag === 1 ? "on days after" : `${t.lag} days after`;
  return {
    type: "factor_effect",
    priority: 2,
    metrics: [factor.key, outcome.key],
    detail: `lag=${t.lag}`,
    period: formatDay(isoWeekStart(record.today)),
    text: `From ${args.start} to ${args.end}, your ${phraseOf(outcome)} averaged ` +
      `${valueText(outcome, r.with.mean)} ${when} ${phraseOf(factor)} against ${
        valueText(outcome, r.without.mean)
      } otherwise (${r.with.n} vs ${
        plural(r.without.n, "day")
      }). Weekday habits and trends are taken into account. ` +
      `${sureness(t.q, m)}; an association, not proof of cause.`,
    evidence: call.evidence(["with.mean", "without.mean", "with.n", "without.n"]),
    weight: Math.abs(t.c.r),
  };
}

function trendDraft(record: MemberRecord, t: TrendTest & { q: number }, m: number): Draft {
  const call = callTool(record, "get_trend", { metric: t.column.key, days: t.window });
  const r = call.result;
  return {
    type: "trend",
    priority: 3,
    metrics: [t.column.key],
    detail: `days=${t.window}`,
    period: formatDay(isoWeekStart(record.today)),
    // "Trend in your X: …" — no verb has to agree with a label such as "Steps"
    text: `Trend in your ${phraseOf(t.column)}: ${r.verdict}, an average of ${
      valueText(t.column, r.current_mean)
    } over the last ${t.window} days (${r.range.start} to ${r.range.end}) against ${
      valueText(t.column, r.previous_mean)
    } in the ${t.window} days before. ${sureness(t.q, m)}.`,
    evidence: call.evidence(["current_mean", "previous_mean", "delta", "p_value", "verdict"]),
    weight: Math.abs(t.t.currentMean - t.t.previousMean) / (t.t.previousSd || 1),
  };
}

function weekdayDraft(record: MemberRecord, t: WeekdayTest & { q: number }, m: number): Draft {
  const args = {
    metric: t.column.key,
    start: formatDay(t.range.start),
    end: formatDay(t.range.end),
  };
  const call = callTool(record, "get_weekday_pattern", args);
  const r = call.result;
  // deno-lint-ignore no-explicit-any
  const mean = (day: string) => r.by_weekday.find((g: any) => g.weekday === day)?.mean;
  return {
    type: "weekday_pattern",
    priority: 3,
    metrics: [t.column.key],
    detail: "weekday",
    period: formatDay(isoWeekStart(record.today)),
    text: `A weekly rhythm in your ${phraseOf(t.column)}: highest on ${r.highest_weekday}s (${
      valueText(t.column, mean(r.highest_weekday) ?? null)
    } on average) and lowest on ${r.lowest_weekday}s (${
      valueText(t.column, mean(r.lowest_weekday) ?? null)
    }), from ${args.start} to ${args.end}. ${sureness(t.q, m)}.`,
    evidence: call.evidence(["highest_weekday", "lowest_weekday", "eta_squared", "n"]),
    weight: t.w.etaSquared,
  };
}

function yearDraft(record: MemberRecord, t: YearTest & { q: number }, m: number): Draft {
  const args = {
    metric: t.column.key,
    a_start: formatDay(t.a.start),
    a_end: formatDay(t.a.end),
    b_start: formatDay(t.b.start),
    b_end: formatDay(t.b.end),
  };
  const call = callTool(record, "compare_periods", args);
  const r = call.result;
  return {
    type: "period_comparison",
    priority: 3,
    metrics: [t.column.key],
    detail: "year_over_year",
    period: formatDay(isoWeekStart(record.today)),
    text: `Compared with the same four weeks a year ago, your ${phraseOf(t.column)} averaged ` +
      `${valueText(t.column, r.a.mean)} (${args.a_start} to ${args.a_end}) against ${
        valueText(t.column, r.b.mean)
      } (${args.b_start} to ${args.b_end}), effect size g ${r.effect_size_g}. ${sureness(t.q, m)}.`,
    evidence: call.evidence(["a.mean", "b.mean", "delta", "effect_size_g", "verdict"]),
    weight: Math.abs(t.cmp.g),
  };
}

/** Drafts for every test that passed, in the screen's order. */
export function statisticalDrafts(
  record: MemberRecord,
  passed: Passed[],
  testsRun: number,
): Draft[] {
  return passed.map((t) => {
    switch (t.kind) {
      case "correlation":
        return factorDraft(record, t, testsRun) ?? correlationDraft(record, t, testsRun);
      case "trend":
        return trendDraft(record, t, testsRun);
      case "weekday":
        return weekdayDraft(record, t, testsRun);
      case "year":
        return yearDraft(record, t, testsRun);
    }
  });
}

/** Days in the whole record on which both columns hold a value (a skip holds none). */
function pairedDaysEver(record: MemberRecord, a: Column, b: Column): number {
  const sa = record.values.get(a.key), sb = record.values.get(b.key);
  if (!sa || !sb) return 0;
  let n = 0;
  for (const [day, value] of sa) {
    const other = sb.get(day);
    if (value !== "skip" && other !== undefined && other !== "skip") n++;
  }
  return n;
}

/** The pair sentence of `unlockDraft`: "not enough yet" only when the record truly lacks it. */
function unlockText(record: MemberRecord, best: Unlock, start: string): string {
  const both = `${phraseOf(best.a)} and ${phraseOf(best.b)}`;
  const lookback = record.today - (parseDay(start) ?? record.today) + 1;
  const ever = pairedDaysEver(record, best.a, best.b);
  if (ever >= MIN_COACH_PAIRS) {
    // the member has the data; this depth reads only its window (issue #20 item 13)
    return `At this depth the coach reads the last ${plural(lookback, "day")} (since ${start}): ` +
      `in them, ${plural(best.have, "day")} have both ${both} logged, and it needs ` +
      `${MIN_COACH_PAIRS} to test whether they move together. Your whole record has ` +
      `${plural(ever, "such day")}, but older days are outside what this depth looks at.`;
  }
  const more = MIN_COACH_PAIRS - best.have;
  return `Not enough yet: ${plural(best.have, "day")} since ${start} have both ${both} ` +
    `logged. ${plural(more, "more day")} of both would let the coach test whether they move ` +
    `together (it needs ${MIN_COACH_PAIRS}); a weaker link needs more days still, because on few ` +
    `days chance alone produces sizeable correlations.`;
}

/**
 * "N more days of X and Y would let the coach test …": the pair closest to the minimum, said
 * instead of a verdict on too little data — or, when the record holds enough such days before
 * the look-back, what this depth looks at. At most one per run.
 */
export function unlockDraft(record: MemberRecord, unlocks: Unlock[], start: string): Draft | null {
  const best = [...unlocks].sort((x, y) => y.have - x.have)[0];
  if (!best) return null;
  const args = { metric_a: best.a.key, metric_b: best.b.key, start, end: formatDay(record.today) };
  const call = callTool(record, "get_correlation", args);
  return {
    type: "coverage",
    priority: 3,
    metrics: [best.a.key, best.b.key],
    detail: "unlock",
    period: formatDay(isoWeekStart(record.today)),
    text: unlockText(record, best, start),
    evidence: call.evidence(["n_pairs"]),
    weight: best.have,
  };
}
