import assert from "node:assert/strict";
import { formatDay, parseDay } from "../foundation/dates.ts";
import type { CoachInsight, DayValue, MemberRecord } from "../record/types.ts";
import { seededRandom, series, testColumn, testRecord } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { TOOL_BY_NAME } from "../tools/registry.ts";
import { analyseRecord, dismissFinding, emptyFindings, mergeFindings } from "./analyse.ts";
import { valueAt } from "./evidence.ts";
import { type Tier, TIER_LIMITS } from "./tier.ts";

const TODAY = parseDay("2026-03-18")!;

/** Replays each finding's evidence call on `record` and compares every key number. */
function assertReplays(
  record: MemberRecord,
  insights: CoachInsight[],
  options: { allowEmpty?: boolean } = {},
) {
  assert.ok(options.allowEmpty || insights.length > 0, "no findings to replay");
  for (const i of insights) {
    const tool = TOOL_BY_NAME.get(i.evidence.tool)!;
    assert.ok(tool, `${i.id}: unknown tool ${i.evidence.tool}`);
    const result = tool.run(record, tool.input.parse(i.evidence.arguments) as never);
    for (const [path, value] of Object.entries(i.evidence.key_numbers)) {
      assert.deepEqual(valueAt(result, path), value, `${i.id} ${i.evidence.tool} ${path}`);
    }
    const family = i.evidence.family;
    if (!family) continue;
    const replay = TOOL_BY_NAME.get(family.tool)!;
    const answer = replay.run(record, replay.input.parse(family.arguments) as never);
    for (const [path, value] of Object.entries(family.key_numbers)) {
      assert.deepEqual(valueAt(answer, path), value, `${i.id} ${family.tool} ${path}`);
    }
  }
}

/**
 * 400 days: y follows x one day later (r ≈ 0.7), w is a level that rose by 1.5 units against the
 * same weeks a year ago, z moves with x on the same day (r ≈ 0.8), and a daily habit has a
 * 7-day streak. Deterministic.
 */
function laggedRecord(): MemberRecord {
  const u = seededRandom(7);
  const n = () => Math.sqrt(-2 * Math.log(Math.max(u(), 1e-9))) * Math.cos(2 * Math.PI * u());
  const days = 400;
  const x: number[] = [], y: number[] = [], w: number[] = [], z: number[] = [];
  for (let i = 0; i < days; i++) {
    x.push(n());
    y.push(i === 0 ? n() : 0.7 * x[i - 1] + 0.71 * n());
    w.push((i >= days - 28 ? 1.5 : 0) + 0.5 * n());
    z.push(0.8 * x[i] + 0.6 * n());
  }
  const columns = ["x", "y", "w", "z"].map((k) =>
    testColumn(k, { unit: "u", direction: "neutral", missing_policy: "neutral" })
  );
  const values: Record<string, Map<number, DayValue>> = {};
  [x, y, w, z].forEach((data, c) => {
    values[columns[c].key] = series(TODAY, days, (_d, i) => Math.round(data[i] * 100) / 100);
  });
  // a daily habit done on each of the last 7 days: a streak milestone both tiers report
  columns.push(testColumn("habit", {
    type: "boolean",
    goal: { op: "true", value: null, per: "day", times: null },
  }));
  values.habit = series(TODAY, 30, (_d, i) => i >= 23);
  return testRecord({ columns, values });
}

function coach(record: MemberRecord, tier: Tier) {
  return mergeFindings(emptyFindings(), analyseRecord(record, tier), { tier, record });
}

/** The earliest day any finding's evidence call reads (explicit start, or days before today). */
function earliestDay(i: CoachInsight): number {
  const a = i.evidence.arguments as Record<string, string | number | undefined>;
  const starts = [a.start, a.a_start, a.b_start].filter((s) => typeof s === "string")
    .map((s) => parseDay(s as string)!);
  if (typeof a.days === "number") starts.push(TODAY - 2 * a.days + 1);
  return Math.min(TODAY, ...starts);
}

Deno.test("analyseRecord() paid finds the lagged and long-range findings, free none of them", () => {
  const record = laggedRecord();
  const paid = coach(record, "paid");
  const free = coach(record, "free");
  const lagged = (i: CoachInsight) =>
    i.type === "correlation" && (i.evidence.arguments.lag_days as number) >= 1;
  const longRange = (i: CoachInsight) => earliestDay(i) <= TODAY - TIER_LIMITS.free.lookbackDays;
  const paidLag = paid.find(lagged);
  assert.ok(paidLag, `paid: ${paid.map((i) => i.type).join(", ")}`);
  assert.deepEqual(paidLag.metrics, ["x", "y"]);
  assert.equal(paidLag.evidence.arguments.lag_days, 1);
  assert.ok(paid.some((i) => i.type === "period_comparison" && i.metrics[0] === "w"));
  assert.ok(paid.some(longRange));
  assert.ok(paid.every((i) => i.depth === "paid"));
  assert.equal(free.filter(lagged).length, 0);
  assert.deepEqual(free.filter(longRange).map((i) => i.text), []);
  assert.ok(free.every((i) => i.depth === "free"));
  assert.ok(free.length <= 3, `free stored ${free.length} new findings in one week`);
  assert.ok(free.some((i) => i.type === "streak_milestone" && i.metrics[0] === "habit"));
  assertReplays(record, paid);
  assertReplays(record, free);
});

Deno.test("analyseRecord() the same record twice gives the same ids, and a dismissed id stays out", () => {
  const record = laggedRecord();
  const first = analyseRecord(record, "paid");
  const stored = {
    ...emptyFindings(),
    insights: mergeFindings(emptyFindings(), first, { tier: "paid", record }),
  };
  const again = mergeFindings(stored, analyseRecord(record, "paid"), { tier: "paid", record });
  assert.deepEqual(again.map((i) => i.id).sort(), stored.insights.map((i) => i.id).sort());
  const gone = stored.insights[0].id;
  const dismissed = dismissFinding(stored, gone);
  const after = mergeFindings(dismissed, analyseRecord(record, "paid"), { tier: "paid", record });
  assert.ok(!after.some((i) => i.id === gone));
  assert.equal(new Set(after.map((i) => i.id)).size, after.length, "no duplicate ids");
});

Deno.test("syntheticMember() insights come from the coach at paid depth and every evidence call replays", () => {
  const m = syntheticMember();
  assert.ok(m.insights.every((i) => i.depth === "paid"));
  assert.deepEqual(m.insights, coach(m, "paid"));
  assertReplays(m, m.insights);
  // the generator links sleep → mood on the same day and has no weight → mood link
  assert.ok(
    m.insights.some((i) => i.type === "correlation" && i.metrics.join() === "sleep_hours,mood"),
  );
  assert.ok(!m.insights.some((i) => i.type === "correlation" && i.metrics.includes("weight_kg")));
  assert.equal(formatDay(m.today), "2026-03-18");
});

Deno.test("TIER_LIMITS: each tier gets what content/docs/membership.md says", async () => {
  const doc = await Deno.readTextFile(new URL("../../content/docs/membership.md", import.meta.url));
  const { free, paid } = TIER_LIMITS;
  assert.match(doc, new RegExp(`the last ${free.lookbackDays} days`));
  assert.match(doc, new RegExp(`up to ${paid.lookbackDays} days per analysis`));
  assert.match(doc, new RegExp(`1, 2 or ${paid.maxLag} days later`));
  assert.match(doc, new RegExp(`at most ${free.weeklyNew} a week`));
  assert.match(doc, new RegExp(`at most ${paid.weeklyNew} a week`));
  assert.equal(free.maxLag, 0);
  assert.deepEqual([free.periodsAndWeekdays, paid.periodsAndWeekdays], [false, true]);
  assert.deepEqual([free.weeklyReview, paid.weeklyReview], [false, true]);
});

Deno.test("mergeFindings() adds at most the tier's weekly allowance of new findings", async () => {
  const { findingId } = await import("./draft.ts");
  const record = laggedRecord();
  const draft = (n: number) => ({
    type: "anomaly" as const,
    priority: 2 as const,
    metrics: ["x"],
    detail: "high",
    period: `2026-03-${10 + n}`,
    text: `finding ${n}`,
    evidence: { tool: "get_anomalies", arguments: {}, key_numbers: {} },
    weight: n,
  });
  const drafts = Array.from({ length: 12 }, (_, n) => draft(n));
  const free = mergeFindings(emptyFindings(), { drafts, testsRun: 0 }, { tier: "free", record });
  assert.equal(free.length, 3);
  const stored = { ...emptyFindings(), insights: free };
  const later = { ...record, now: "2026-03-20T12:00:00.000Z" };
  const again = mergeFindings(stored, { drafts, testsRun: 0 }, { tier: "free", record: later });
  assert.deepEqual(
    again.map((i) => i.id).sort(),
    free.map((i) => i.id).sort(),
    "no new ones in the week",
  );
  const nextWeek = { ...record, now: "2026-03-26T12:00:00.000Z" };
  const more = mergeFindings(stored, { drafts, testsRun: 0 }, { tier: "free", record: nextWeek });
  assert.equal(more.length, 6);
  const paid = mergeFindings(emptyFindings(), { drafts, testsRun: 0 }, { tier: "paid", record });
  assert.equal(paid.filter((i) => i.type !== "weekly_review").length, 10);
  assert.equal(paid.filter((i) => i.type === "weekly_review").length, 1);
  assert.ok(free.every((i) => i.id === findingId(drafts.find((d) => d.text === i.text)!)));
});

Deno.test("analyseRecord() on too little data says how many more days would let it test a link", () => {
  const columns = [testColumn("sleep_hours"), testColumn("mood")];
  const record = testRecord({
    columns,
    values: {
      sleep_hours: series(TODAY, 12, (_d, i) => 6 + (i % 3)),
      mood: series(TODAY, 12, (_d, i) => 3 + (i % 2)),
    },
  });
  const found = coach(record, "free");
  const unlock = found.find((i) => i.type === "coverage" && i.metrics.length === 2);
  assert.ok(unlock, found.map((i) => i.text).join(" | "));
  assert.match(unlock.text, /12 days .* 9 more days of both would let the coach test/);
  assertReplays(record, [unlock]);
});

Deno.test("analyseRecord() copes with every column type, sparse, skipped and empty data", () => {
  const r = seededRandom(99);
  const columns = [
    testColumn("num"),
    testColumn("int", {
      type: "integer",
      goal: { op: "at_most", value: 3, per: "day", times: null },
    }),
    testColumn("scale", { type: "scale", scale_min: 1, scale_max: 5 }),
    testColumn("yes", {
      type: "boolean",
      goal: { op: "true", value: null, per: "week", times: 3 },
    }),
    testColumn("mins", { type: "duration_min", direction: "lower_better" }),
    testColumn("bed", { type: "time_of_day", direction: "target" }),
    testColumn("old", { archived: true }),
    testColumn("never"),
    testColumn("flat", { direction: "neutral" }),
  ];
  const pick = (v: DayValue): DayValue | undefined =>
    r() < 0.3 ? undefined : r() < 0.05 ? "skip" : v;
  const values = {
    num: series(TODAY, 500, () => pick(Math.round(r() * 100) / 10)),
    int: series(TODAY, 40, () => pick(Math.floor(r() * 6))),
    scale: series(TODAY, 200, () => pick(1 + Math.floor(r() * 5))),
    yes: series(TODAY, 90, () => pick(r() < 0.5)),
    mins: series(TODAY, 3, () => pick(Math.floor(r() * 60))),
    bed: series(TODAY, 120, () => pick(1320 + Math.floor(r() * 100))),
    old: series(TODAY, 60, (_d, i) => i),
    flat: series(TODAY, 60, () => 5),
  };
  const empty = testRecord({ columns: [], values: {} });
  const noEntries = testRecord({ columns, values: {} });
  for (const record of [testRecord({ columns, values }), empty, noEntries]) {
    for (const tier of ["free", "paid"] as const) {
      const found = coach(record, tier);
      assertReplays(record, found, { allowEmpty: true });
      assert.ok(!found.some((i) => i.metrics.includes("old")), "archived columns are left out");
    }
  }
});
