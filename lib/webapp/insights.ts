/**
 * What the Coach page shows (`/app/insights`, issue #11 §5): the member's stored coach findings,
 * exactly as the `get_coach_insights` tool returns them (the tool itself runs here, on the same
 * record snapshot an agent reads), each with its evidence and links to the History chart of the
 * columns it is about; and, when there are none, an honest account of why.
 */

import { type DayNumber, formatDay, localDay } from "../foundation/dates.ts";
import type { MemberRecords, RecordOwner } from "../record/member_records.ts";
import type { CoachInsight, MemberRecord } from "../record/types.ts";
import { MIN_COACH_NEFF, SCREEN_DEPTHS } from "../analytics/coach_screen.ts";
import { runTool } from "../tools/run_tool.ts";
import { type EvidenceLine, evidenceLines } from "./evidence_words.ts";

/** How far back the page lists findings, and how many at most (the tool's own maximum). */
export const INSIGHTS_LOOKBACK_DAYS = 365;
export const INSIGHTS_LIMIT = 50;

/** A column a finding is about, with its History link. */
export interface InsightMetric {
  key: string;
  label: string;
  href: string;
}

/** One finding as the page shows it. */
export interface InsightCard {
  insight: CoachInsight;
  /** "Trend", "Record"… */
  kind: string;
  /**
   * The member-local day it was written (`YYYY-MM-DD`), or the stored timestamp when it cannot be
   * read; the page writes it in the member's date style (components/dates.ts).
   */
  written: string;
  metrics: InsightMetric[];
  /** The coach tier ("free" / "paid") that produced it, when the finding says (issue #12). */
  depth: string | null;
  /** `key_numbers` in the member's words ("Days the goal was met: 0 of 6"), in the coach's order. */
  numbers: EvidenceLine[];
}

/** Everything the Coach page renders. */
export interface InsightsView {
  cards: InsightCard[];
  /** How many stored findings matched in all (the page shows at most `INSIGHTS_LIMIT`). */
  total: number;
  hasColumns: boolean;
  /** Days with any value logged in the last `lookbackDays` (what every tier of the coach reads). */
  daysLogged: number;
  lookbackDays: number;
  /**
   * Logged days the coach needs before it tests anything: its minimum of effective days (a
   * persistent record needs more logged days than that; issue #20).
   */
  minDays: number;
  /** Logged days still missing before then. */
  daysNeeded: number;
}

/** Words for each finding type; types a newer coach adds fall back to their own name. */
const KIND_WORDS: Record<string, string> = {
  streak_milestone: "Streak",
  record: "Personal best",
  trend: "Trend",
  correlation: "Relationship",
  goal_miss: "Goal missed",
  anomaly: "Unusual day",
  coverage: "Logging gap",
  weekday_pattern: "Weekday pattern",
  period_comparison: "Then and now",
  weekly_review: "Weekly review",
};

function daysLoggedSince(record: MemberRecord, since: DayNumber): number {
  const days = new Set<DayNumber>();
  for (const series of record.values.values()) {
    for (const [day, value] of series) {
      if (day >= since && day <= record.today && value !== "skip") days.add(day);
    }
  }
  return days.size;
}

function cardOf(record: MemberRecord, insight: CoachInsight): InsightCard {
  const written = Date.parse(insight.created_at);
  return {
    insight,
    kind: KIND_WORDS[insight.type] ?? String(insight.type).replaceAll("_", " "),
    written: Number.isFinite(written)
      ? formatDay(localDay(written, record.timezone, record.dayStartOffsetHours))
      : insight.created_at,
    metrics: insight.metrics.map((key) => {
      const column = record.columns.find((c) => c.key === key);
      return {
        key,
        label: column?.label ?? key,
        href: `/app/history?column=${encodeURIComponent(key)}`,
      };
    }),
    depth: typeof (insight as { depth?: unknown }).depth === "string"
      ? (insight as unknown as { depth: string }).depth
      : null,
    // Key numbers are stored by their path in the tool's result; the page names them in words.
    numbers: evidenceLines(insight, record.columns),
  };
}

/** The Coach view of `record` (pure: runs `get_coach_insights` on the snapshot via `runTool`). */
export function insightsView(record: MemberRecord): InsightsView {
  const since = formatDay(record.today - INSIGHTS_LOOKBACK_DAYS);
  // The tool runner an agent's `tools/call` goes through, with arguments that always validate.
  const outcome = runTool(record, "get_coach_insights", { limit: INSIGHTS_LIMIT, since });
  if (outcome.kind !== "result") throw outcome.error;
  const result = outcome.structured as { insights: CoachInsight[]; total_matching: number };
  // the free depth's look-back: the shorter of the two, so the count never flatters either tier
  const lookbackDays = SCREEN_DEPTHS.free.lookbackDays;
  const daysLogged = daysLoggedSince(record, record.today - lookbackDays + 1);
  return {
    cards: result.insights.map((i) => cardOf(record, i)),
    total: result.total_matching,
    hasColumns: record.columns.some((c) => !c.archived),
    daysLogged,
    lookbackDays,
    minDays: MIN_COACH_NEFF,
    daysNeeded: Math.max(0, MIN_COACH_NEFF - daysLogged),
  };
}

/** Loads the member's record once and builds the Coach view (the route's one lib call). */
export async function loadInsights(
  records: MemberRecords,
  owner: RecordOwner,
): Promise<InsightsView> {
  const { record } = await records.load(owner.memberId, owner.recordVersion);
  return insightsView(record);
}
