import assert from "node:assert/strict";
import type { CoachInsight } from "../record/types.ts";
import { day, testRecord } from "./_test_record.ts";
import { selectInsights } from "./insights.ts";

const insight = (
  id: string,
  created_at: string,
  type: CoachInsight["type"],
  metrics: string[],
) => ({
  id,
  created_at,
  type,
  priority: 2 as const,
  metrics,
  text: id,
  evidence: { tool: "get_streak", arguments: {}, key_numbers: {} },
  depth: "free" as const,
});

const record = {
  ...testRecord({ columns: [], values: {} }),
  insights: [
    insight("old", "2026-02-01T12:00:00.000Z", "trend", ["weight_kg"]),
    // 03:00 UTC on 03-10 is still 03-09 in New York.
    insight("edge", "2026-03-10T03:00:00.000Z", "coverage", ["water_l"]),
    insight("new", "2026-03-17T12:00:00.000Z", "anomaly", ["resting_hr", "sleep_hours"]),
    insight("mid", "2026-03-12T12:00:00.000Z", "trend", ["sleep_hours"]),
  ],
};

Deno.test("selectInsights() returns insights since a member-local date, newest first", () => {
  const all = selectInsights(record, { since: day("2026-03-09"), limit: 5 });
  assert.deepEqual(all.insights.map((i) => i.id), ["new", "mid", "edge"]);
  assert.equal(selectInsights(record, { since: day("2026-03-10"), limit: 5 }).total, 2);
});

Deno.test("selectInsights() filters by type and metric, and limits after counting", () => {
  assert.deepEqual(
    selectInsights(record, { since: day("2026-01-01"), type: "trend", limit: 5 }).insights.map((
      i,
    ) => i.id),
    ["mid", "old"],
  );
  assert.deepEqual(
    selectInsights(record, { since: day("2026-01-01"), metric: "sleep_hours", limit: 5 }).insights
      .map((i) => i.id),
    ["new", "mid"],
  );
  const limited = selectInsights(record, { since: day("2026-01-01"), limit: 1 });
  assert.deepEqual([limited.insights.length, limited.total], [1, 4]);
});
