/** Stored coach findings (`get_coach_insights`), filtered by date, type and metric. */

import type { DayNumber } from "../foundation/dates.ts";
import { localDay } from "../foundation/dates.ts";
import type { CoachInsight, MemberRecord } from "../record/types.ts";

/** Filters of `selectInsights`. */
export interface InsightFilter {
  since: DayNumber;
  type?: CoachInsight["type"];
  metric?: string;
  limit: number;
}

/**
 * Insights created on or after `since` (member-local date of `created_at`) matching the type and
 * metric, newest first, at most `limit`; `total` counts every match before the limit.
 */
export function selectInsights(
  record: MemberRecord,
  filter: InsightFilter,
): { insights: CoachInsight[]; total: number } {
  const matches = record.insights
    .filter((i) =>
      localDay(Date.parse(i.created_at), record.timezone, record.dayStartOffsetHours) >=
        filter.since &&
      (filter.type === undefined || i.type === filter.type) &&
      (filter.metric === undefined || i.metrics.includes(filter.metric))
    )
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  return { insights: matches.slice(0, filter.limit), total: matches.length };
}
