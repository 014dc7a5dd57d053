/**
 * Findings that are events rather than tests: streak milestones and streaks at risk today,
 * personal records, last week's missed goals, unusual days and logging gaps, and (paid) the
 * weekly review. Each runs the tool an agent would run and quotes its result.
 */

import { formatDay, isoWeekStart } from "../foundation/dates.ts";
import type { Column, MemberRecord } from "../record/types.ts";
import { capitalPhraseOf, phraseOf, plural, valueText } from "../analytics/_wording.ts";
import { callTool, type ToolCall } from "./evidence.ts";
import type { Draft } from "./draft.ts";

/** Streak lengths worth a word. */
export const MILESTONES = [7, 14, 21, 30, 50, 75, 100, 150, 200, 250, 300, 365, 500, 730, 1000];
/** A streak at risk is mentioned from this length on. */
const AT_RISK_FROM = 3;
/** Unusual days reported per run, most extreme first. */
const MAX_ANOMALIES = 2;

/** Columns a streak is meaningful for: yes/no habits and columns with a goal. */
const streakable = (c: Column) => c.type === "boolean" || c.goal !== null;

function streakDraft(record: MemberRecord, column: Column): Draft | null {
  const call = callTool(record, "get_streak", { metric: column.key });
  const r = call.result;
  const len: number = r.current?.length ?? 0;
  const unit = r.unit === "week" ? "week" : "day";
  if (r.status === "at_risk" && len >= AT_RISK_FROM && r.current_week) {
    return weeklyAtRiskDraft(call, column, len);
  }
  if (r.status === "at_risk" && len >= AT_RISK_FROM) {
    return atRiskDraft(
      { call, column, len },
      `nothing that counts is logged for today (${r.today}) yet. Your longest is ` +
        `${plural(r.longest?.length ?? len, unit)}.`,
      ["current.length", "current.start", "status", "longest.length"],
    );
  }
  if ((r.status === "active_today" || r.status === "active") && MILESTONES.includes(len)) {
    return {
      type: "streak_milestone",
      priority: 2,
      metrics: [column.key],
      detail: `milestone=${len}`,
      period: r.current.start,
      text: `${plural(len, unit)} in a row of ${phraseOf(column)} (since ${r.current.start})` +
        (r.is_record ? ", your longest streak yet." : `; your longest is ${r.longest.length}.`),
      evidence: call.evidence(["current.length", "current.start", "status", "is_record"]),
      weight: len,
    };
  }
  return null;
}

/**
 * A weekly goal's run at risk: the current week is short of its target so far. Said as the week's
 * progress ("1 of 3 this week"), not as a day to log.
 */
function weeklyAtRiskDraft(call: ToolCall, column: Column, len: number): Draft {
  const r = call.result;
  const w = r.current_week;
  return atRiskDraft(
    { call, column, len },
    `${w.done} of ${w.target} this week so far, with ${plural(w.remaining_days, "day")} left to ` +
      `reach the goal. Your longest is ${plural(r.longest?.length ?? len, "week")}.`,
    [
      "current.length",
      "current.start",
      "current_week.done",
      "current_week.target",
      "current_week.remaining_days",
      "longest.length",
    ],
  );
}

/** A streak at risk, daily or weekly: "Your N-day X streak (since …) is at risk: " + `why`. */
function atRiskDraft(
  run: { call: ToolCall; column: Column; len: number },
  why: string,
  evidence: string[],
): Draft {
  const { call, column, len } = run;
  const r = call.result;
  const unit = r.unit === "week" ? "week" : "day";
  return {
    type: "streak_milestone",
    priority: 1,
    metrics: [column.key],
    detail: "at_risk",
    period: `${r.current.start}+${len}`,
    text: `Your ${len}-${unit} ${phraseOf(column)} streak (since ${r.current.start}) is at risk: ` +
      why,
    evidence: call.evidence(evidence),
    weight: len,
  };
}

function recordDraft(record: MemberRecord, column: Column): Draft | null {
  if (column.type === "boolean" || column.direction === "neutral") return null;
  const call = callTool(record, "get_personal_bests", { metric: column.key, top: 1 });
  const r = call.result;
  if (!r.recent_record || !r.recent_records.includes("best_day")) return null;
  const best = r.best_days[0];
  return {
    type: "record",
    priority: 2,
    metrics: [column.key],
    detail: "best_day",
    period: best.date,
    text: `A personal record for ${phraseOf(column)}: ${valueText(column, best.value)} on ` +
      `${best.date}, your ${r.best_is} day in the ${plural(r.n, "day")} logged.`,
    evidence: call.evidence(["best_days.0.date", "best_days.0.value", "n"]),
    weight: 1,
  };
}

function goalMissDrafts(record: MemberRecord): Draft[] {
  const lastWeek = isoWeekStart(record.today) - 7;
  const date = formatDay(lastWeek + 6);
  const call = callTool(record, "get_goal_progress", { period: "week", date });
  const drafts: Draft[] = [];
  // deno-lint-ignore no-explicit-any
  call.result.goals.forEach((g: any, i: number) => {
    const missed = g.weekly
      ? g.weekly.done < g.weekly.target
      : g.eligible_days >= 4 && g.met_days / g.eligible_days < 0.5;
    if (!missed) return;
    const column = record.columns.find((c) => c.key === g.metric)!;
    // "your goal for X was met …": the label never follows "aimed for", nor needs a verb
    const how = g.weekly
      ? `on ${g.weekly.done} of the ${plural(g.weekly.target, "day")} you aimed for`
      : `on ${g.met_days} of ${plural(g.eligible_days, "day")}`;
    drafts.push({
      type: "goal_miss",
      priority: 2,
      metrics: [g.metric],
      detail: "week",
      period: g.period.start,
      text: `Last week (${g.period.start} to ${g.period.end}) your goal for ` +
        `${phraseOf(column)} was met ${how}.`,
      evidence: call.evidence(
        g.weekly
          ? [`goals.${i}.weekly.done`, `goals.${i}.weekly.target`]
          : [`goals.${i}.met_days`, `goals.${i}.eligible_days`],
      ),
      weight: 1,
    });
  });
  return drafts;
}

function anomalyDrafts(record: MemberRecord): Draft[] {
  const args = { start: formatDay(record.today - 6), end: formatDay(record.today) };
  const call = callTool(record, "get_anomalies", args);
  // deno-lint-ignore no-explicit-any
  const found = call.result.anomalies.map((a: any, i: number) => ({ a, i }))
    .sort((x: { a: { robust_z: number } }, y: { a: { robust_z: number } }) =>
      Math.abs(y.a.robust_z) - Math.abs(x.a.robust_z)
    )
    .slice(0, MAX_ANOMALIES);
  // deno-lint-ignore no-explicit-any
  return found.map(({ a, i }: any) => {
    const column = record.columns.find((c) => c.key === a.metric)!;
    return {
      type: "anomaly",
      priority: 2,
      metrics: [a.metric],
      detail: a.direction,
      period: a.date,
      text: `Unusually ${a.direction} ${phraseOf(column)} on ${a.date}: ` +
        `${valueText(column, a.value)} against your usual ${
          valueText(column, a.baseline_median)
        } over the 28 days before (robust z ${a.robust_z}).`,
      evidence: call.evidence([`anomalies.${i}.value`, `anomalies.${i}.baseline_median`]),
      weight: Math.abs(a.robust_z),
    } satisfies Draft;
  });
}

function gapDrafts(record: MemberRecord): Draft[] {
  const args = { start: formatDay(record.today - 29), end: formatDay(record.today) };
  const call = callTool(record, "get_data_coverage", args);
  const drafts: Draft[] = [];
  // deno-lint-ignore no-explicit-any
  call.result.columns.forEach((c: any, i: number) => {
    const column = record.columns.find((col) => col.key === c.metric)!;
    if (column.archived || c.days_since_last === null) return;
    if (c.days_since_last < 3 || c.days_since_last > 21 || c.days_logged < 7) return;
    drafts.push({
      type: "coverage",
      priority: 3,
      metrics: [c.metric],
      detail: "gap",
      period: c.last_logged,
      text:
        `${capitalPhraseOf(column)}: nothing logged for ${
          plural(c.days_since_last, "day")
        } (last on ${c.last_logged}), after ${
          plural(c.days_logged, "logged day")
        } in the last 30. A missing day is never counted as zero, but trends and links for it ` +
        `weaken across the gap.`,
      evidence: call.evidence([`columns.${i}.days_since_last`, `columns.${i}.last_logged`]),
      weight: c.days_logged,
    });
  });
  return drafts;
}

/** The paid tier's weekly review of the last complete ISO week. */
export function weeklyReviewDraft(record: MemberRecord, newThisWeek: number): Draft {
  const monday = isoWeekStart(record.today) - 7;
  const args = { start: formatDay(monday), end: formatDay(monday + 6) };
  const call = callTool(record, "get_data_coverage", args);
  const o = call.result.overall;
  return {
    type: "weekly_review",
    priority: 3,
    metrics: [],
    detail: "review",
    period: args.start,
    text: `Your week of ${args.start} to ${args.end}: something was logged on ` +
      `${o.days_with_any_entry} of 7 days, and the coach found ${
        plural(newThisWeek, "new thing")
      } worth a look this week.`,
    evidence: call.evidence(["overall.days_with_any_entry"]),
    weight: 0,
  };
}

/** Every event draft of the record (streaks, records, goal misses, anomalies, gaps). */
export function eventDrafts(record: MemberRecord): Draft[] {
  const drafts: Draft[] = [];
  for (const column of record.columns) {
    if (column.archived || (record.values.get(column.key)?.size ?? 0) === 0) continue;
    const streak = streakable(column) ? streakDraft(record, column) : null;
    if (streak) drafts.push(streak);
    const best = recordDraft(record, column);
    if (best) drafts.push(best);
  }
  drafts.push(...goalMissDrafts(record), ...anomalyDrafts(record), ...gapDrafts(record));
  return drafts;
}
