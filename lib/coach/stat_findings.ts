/**
 * Sentences for what survived the screen (lib/coach/screen.ts). Each one quotes the numbers of
 * the tool call it cites, run here on the same record, so its evidence reproduces it exactly.
 * Pattern (statistics.md §8): what + direction + size in units + period + how sure + what it is not.
 */

import { formatDay, isoWeekStart, parseDay } from "../foundation/dates.ts";
import type { CoachInsight, Column, MemberRecord } from "../record/types.ts";
import { type AppliedAdjustment, confidenceFromQ, reportP } from "../analytics/adjust.ts";
import { correlationSentence } from "../analytics/correlation.ts";
import { effectLabel } from "../analytics/factor_effect.ts";
import { phraseOf, plural, shownNumber, valueText } from "../analytics/_wording.ts";
import { callTool } from "./evidence.ts";
import type { Draft } from "./draft.ts";
import type { Tier } from "./tier.ts";
import {
  COACH_DETREND,
  COACH_METHOD,
  effectiveDays,
  type FactorTest,
  MIN_COACH_PAIRS,
  type PairTest,
  type Passed,
  type ScreenResult,
  type TrendTest,
  type Unlock,
  type WeekdayTest,
  type YearTest,
} from "./screen.ts";

/** The one family a statistical sentence's q comes from: its size and how to replay it. */
interface Family {
  testsRun: number;
  tier: Tier;
  end: string;
}

/** The coach's word for its q and n_eff: the tools' own bands (adjust.ts `confidenceFromQ`). */
const SURENESS = { high: "Confident", medium: "Fairly confident", low: "Tentative" } as const;

/**
 * How sure the coach is, from its q in the one family and the test's n_eff, naming the family
 * (issue #20 items 8 and 11: the words never contradict q or n_eff).
 */
function sureness(t: Passed, family: Family): string {
  const word = SURENESS[confidenceFromQ(t.q, effectiveDays(t))];
  return `${word} (q ${reportP(t.q).text} after one Benjamini–Yekutieli correction over the ` +
    `${family.testsRun} tests the coach ran at ${family.tier} depth)`;
}

/** The replay of a statistical sentence's q and family size: `get_coach_insights` re-screening. */
function familyEvidence(
  t: Passed,
  family: Family,
): NonNullable<CoachInsight["evidence"]["family"]> {
  return {
    tool: "get_coach_insights",
    arguments: { screen: family.tier, screen_end: family.end },
    key_numbers: {
      "screen.tests_run": family.testsRun,
      [`screen.passed.${t.id}.q`]: reportP(t.q).value,
    },
  };
}

/** A draft's evidence with the family call beside the numbers' call. */
function withFamily(
  evidence: CoachInsight["evidence"],
  t: Passed,
  family: Family,
): CoachInsight["evidence"] {
  return { ...evidence, family: familyEvidence(t, family) };
}

/** What an adjustment took out, inside a sentence (issue #20 item 11: say what really ran). */
const TAKEN_OUT: Record<AppliedAdjustment, string> = {
  weekday_trend: "your weekday rhythm and trend taken out",
  weekend_trend: "your weekend rhythm and trend taken out",
  trend: "your trend taken out",
  weekday: "your weekday rhythm taken out",
  weekend: "your weekend rhythm taken out",
  none: "nothing taken out (too few days to estimate your weekday rhythm)",
};

function correlationDraft(
  record: MemberRecord,
  t: PairTest & Passed,
  family: Family,
): Draft {
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
  // the lead sentence's hedge follows the coach's q, not the single test's p (issue #20 item 11)
  const confidence = confidenceFromQ(t.q, t.c.nEff);
  const lead = correlationSentence({ a: t.a, b: t.b, lag: t.lag, c: { ...t.c, confidence } });
  return {
    type: "correlation",
    priority: 2,
    metrics: [t.a.key, t.b.key],
    detail: `lag=${t.lag}`,
    period: formatDay(isoWeekStart(record.today)),
    text: `${lead} From ${args.start} to ${args.end} (${plural(r.n_pairs, "day")} with ` +
      `${phraseOf(t.a)} and ${phraseOf(t.b)} ${when} both logged) the correlation is ` +
      `${r.r}, with ${TAKEN_OUT[t.c.applied]}. ${sureness(t, family)}; an association, ` +
      `not proof of cause.`,
    evidence: withFamily(
      call.evidence(["r", "n_pairs", "p_value", "lag_days"]),
      t,
      family,
    ),
    weight: Math.abs(t.c.r),
  };
}

/** A difference of `column`'s level: "0.52 h", "0.4 points on the 1–5 scale". */
function differenceText(column: Column, x: number): string {
  const shown = shownNumber(Math.abs(x));
  if (column.type === "scale" && column.scale_max !== null) {
    return `${shown} ${Math.abs(x) === 1 ? "point" : "points"} on the ` +
      `${column.scale_min ?? 1}–${column.scale_max} scale`;
  }
  return column.unit ? `${shown} ${column.unit}` : shown;
}

/**
 * A yes/no factor's effect on a column (statistics.md §8), decided by its weekday- and
 * trend-adjusted effect size and led by the adjusted numbers; the raw averages follow as what the
 * member sees in their log (issue #20 item 6: on a weekend-confounded factor the raw difference
 * was +1.05 and the adjusted one 0.00).
 */
function factorDraft(record: MemberRecord, t: FactorTest & Passed, family: Family): Draft {
  const [factor, outcome] = [t.a, t.b];
  const args = {
    factor: factor.key,
    outcome: outcome.key,
    lag_days: t.lag,
    start: formatDay(t.range.start),
    end: formatDay(t.range.end),
    detrend: COACH_DETREND,
  };
  const call = callTool(record, "get_factor_effect", args);
  const r = call.result;
  const when = t.lag === 0
    ? `on days with ${phraseOf(factor)}`
    : t.lag === 1
    ? `on days after ${phraseOf(factor)}`
    : `${t.lag} days after ${phraseOf(factor)}`;
  const higher = t.e.adjustedDifference >= 0 ? "higher" : "lower";
  return {
    type: "factor_effect",
    priority: 2,
    metrics: [factor.key, outcome.key],
    detail: `lag=${t.lag}`,
    period: formatDay(isoWeekStart(record.today)),
    text: `From ${args.start} to ${args.end}, your ${phraseOf(outcome)} was ` +
      `${differenceText(outcome, r.adjusted_difference)} ${higher} ${when} than otherwise, with ` +
      `${TAKEN_OUT[t.e.applied]} (effect size g ${r.effect_size_g}, ${
        effectLabel(t.e.g)
      }). The plain averages were ${valueText(outcome, r.with.mean)} against ${
        valueText(outcome, r.without.mean)
      } (${r.with.n} vs ${plural(r.without.n, "day")}). ` +
      `${sureness(t, family)}; an association, not proof of cause.`,
    evidence: withFamily(
      call.evidence([
        "adjusted_difference",
        "effect_size_g",
        "with.mean",
        "without.mean",
        "with.n",
        "without.n",
      ]),
      t,
      family,
    ),
    weight: Math.abs(t.e.g),
  };
}

function trendDraft(record: MemberRecord, t: TrendTest & Passed, family: Family): Draft {
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
    } in the ${t.window} days before. ${sureness(t, family)}.`,
    evidence: withFamily(
      call.evidence(["current_mean", "previous_mean", "delta", "p_value", "verdict"]),
      t,
      family,
    ),
    weight: Math.abs(t.t.currentMean - t.t.previousMean) / (t.t.previousSd || 1),
  };
}

function weekdayDraft(record: MemberRecord, t: WeekdayTest & Passed, family: Family): Draft {
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
    }), from ${args.start} to ${args.end}. ${sureness(t, family)}.`,
    evidence: withFamily(
      call.evidence(["highest_weekday", "lowest_weekday", "eta_squared", "n"]),
      t,
      family,
    ),
    weight: t.w.etaSquared,
  };
}

function yearDraft(record: MemberRecord, t: YearTest & Passed, family: Family): Draft {
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
      } (${args.b_start} to ${args.b_end}), effect size g ${r.effect_size_g}. ${
        sureness(t, family)
      }.`,
    evidence: withFamily(
      call.evidence(["a.mean", "b.mean", "delta", "effect_size_g", "verdict"]),
      t,
      family,
    ),
    weight: Math.abs(t.cmp.g),
  };
}

/** Drafts for every test that passed, in the screen's order, each naming the one family. */
export function statisticalDrafts(record: MemberRecord, screen: ScreenResult, tier: Tier): Draft[] {
  const family = { testsRun: screen.testsRun, tier, end: formatDay(screen.range.end) };
  return screen.passed.map((t) => {
    switch (t.kind) {
      case "correlation":
        return correlationDraft(record, t, family);
      case "factor":
        return factorDraft(record, t, family);
      case "trend":
        return trendDraft(record, t, family);
      case "weekday":
        return weekdayDraft(record, t, family);
      case "year":
        return yearDraft(record, t, family);
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
