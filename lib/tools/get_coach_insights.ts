/** `get_coach_insights`: the automated coach's stored findings with their evidence. */

import { z } from "zod";
import { parseDay } from "../foundation/dates.ts";
import { envelope, findColumn } from "../analytics/common.ts";
import { selectInsights } from "../analytics/insights.ts";
import {
  COACH_Q,
  SCREEN_DEPTHS,
  screenRange,
  screenRecord,
  screenReplay,
} from "../analytics/coach_screen.ts";
import type { MemberRecord } from "../record/types.ts";
import { defineTool } from "./define_tool.ts";
import { DateString, EnvelopeFields, MetricName } from "./schemas.ts";

/** Default look-back of `since`, in days before today. */
export const DEFAULT_SINCE_DAYS = 30;

const InsightType = z.enum([
  "streak_milestone",
  "record",
  "trend",
  "correlation",
  "goal_miss",
  "anomaly",
  "coverage",
  "factor_effect",
  "weekday_pattern",
  "period_comparison",
  "weekly_review",
]);

const DEFINITION =
  "Returns stored coach findings created on or after since (member-local date), optionally only of one type or mentioning one metric, newest first, each with the tool call (evidence.tool and evidence.arguments) that reproduces its key_numbers; a statistical finding's evidence.family names the call (this tool with screen and screen_end) that reproduces its q and the number of tests in its one Benjamini–Yekutieli family.";

const Evidence = {
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  key_numbers: z.record(z.string(), z.unknown()).meta({
    description:
      "Values at dotted paths of that tool's result (e.g. current.length), as it returns them.",
  }),
};

const ScreenReplay = z.object({
  depth: z.enum(["free", "paid"]),
  start: z.string(),
  end: z.string(),
  tests_run: z.int().meta({
    description: `Tests in the coach's one Benjamini–Yekutieli family (q ≤ ${COACH_Q}).`,
  }),
  passed: z.record(
    z.string(),
    z.object({ p: z.number().nullable(), q: z.number().nullable(), q_text: z.string() }),
  ).meta({
    description:
      "Tests that passed the correction and the coach's floors, by name (kind:columns:lag or window), with the single-test p and the family's q.",
  }),
});

/** The `get_coach_insights` tool. */
export const getCoachInsights = defineTool({
  name: "get_coach_insights",
  title: "Coach insights",
  description:
    "The coach's recent findings (streak milestones, records, trends, correlations, missed goals, anomalies, logging gaps), each with the tool call that reproduces its numbers. See what the coach noticed before analysing from scratch.",
  input: z.object({
    limit: z.int().min(1).max(50).default(5).meta({
      description: "Most insights to return.",
    }),
    since: DateString.optional().meta({
      description:
        `Only insights created on or after this date (default today − ${DEFAULT_SINCE_DAYS}).`,
    }),
    type: InsightType.optional().meta({ description: "Only insights of this type (default any)." }),
    metric: MetricName.optional().meta({
      description: "Only insights that mention this column key (default any).",
    }),
    screen: z.enum(["free", "paid"]).optional().meta({
      description: "Re-run the coach's screen at this depth (see evidence.family).",
    }),
    screen_end: DateString.optional().meta({
      description: "Its last day (default today)",
    }),
  }).strict(),
  output: z.object({
    ...EnvelopeFields,
    total_matching: z.int(),
    insights: z.array(z.object({
      id: z.string(),
      created_at: z.string(),
      type: InsightType,
      priority: z.union([z.literal(1), z.literal(2), z.literal(3)]),
      metrics: z.array(z.string()),
      text: z.string(),
      evidence: z.object({
        ...Evidence,
        family: z.object(Evidence).optional().meta({
          description:
            "For a statistical finding: the call whose screen.tests_run and screen.passed.<test>.q reproduce the family size and q the sentence states.",
        }),
      }),
      depth: z.enum(["free", "paid"]).meta({
        description:
          "The coach depth that produced the finding (free: 180 days, same-day links; paid: 365 days, lags 1–3, period comparisons, weekday patterns).",
      }),
    })),
    screen: ScreenReplay.optional(),
  }),
  run(record, args) {
    if (args.metric !== undefined) findColumn(record, args.metric);
    const since = args.since !== undefined
      ? parseDay(args.since)!
      : record.today - DEFAULT_SINCE_DAYS;
    const { insights, total } = selectInsights(record, {
      since,
      type: args.type,
      metric: args.metric,
      limit: args.limit,
    });
    return {
      ...envelope(record, { start: Math.min(since, record.today), end: record.today }, DEFINITION),
      total_matching: total,
      insights,
      ...(args.screen === undefined
        ? {}
        : { screen: replay(record, args.screen, args.screen_end) }),
    };
  },
});

/** The coach's screen at `depth` over the days ending `end` (default today), as it replays. */
function replay(record: MemberRecord, depth: "free" | "paid", end: string | undefined) {
  const last = end === undefined ? record.today : Math.min(parseDay(end)!, record.today);
  const range = screenRange(last, SCREEN_DEPTHS[depth]);
  return screenReplay(screenRecord(record, range, SCREEN_DEPTHS[depth]), depth);
}
