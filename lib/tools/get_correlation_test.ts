import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import {
  assertValidResult,
  day,
  seededRandom,
  series,
  testColumn,
  testRecord,
} from "../analytics/_test_record.ts";
import { getCorrelation } from "./get_correlation.ts";

const today = day("2026-03-18");
const rnd = seededRandom(11);
const sleepValues = series(today, 200, (_d, i) => (i % 9 === 4 ? undefined : 6 + 3 * rnd()));
const record = testRecord({
  columns: [
    testColumn("sleep_hours", { label: "Sleep hours", unit: "h" }),
    testColumn("mood", { label: "Mood", type: "scale", scale_min: 1, scale_max: 5 }),
    testColumn("workout", { label: "Workout", type: "boolean" }),
    testColumn("empty"),
  ],
  values: {
    sleep_hours: sleepValues,
    mood: series(today - 1, 199, (d) => {
      const s = sleepValues.get(d);
      return typeof s === "number" ? Math.max(1, Math.min(5, Math.round(s - 4 + rnd()))) : 3;
    }),
    workout: series(today, 200, () => rnd() < 0.5),
  },
});

/** Runs the tool the way the MCP layer does: input parsed (defaults applied), then run. */
function call(args: Record<string, unknown>) {
  const result = getCorrelation.run(record, getCorrelation.input.parse(args));
  assertValidResult(getCorrelation, result);
  return result;
}

Deno.test("get_correlation() default: Spearman over 90 days with every §3.2 field", () => {
  const r = call({ metric_a: "sleep_hours", metric_b: "mood" });
  assert.equal(r.method, "spearman");
  assert.equal(r.lag_days, 0);
  assert.deepEqual(r.range, { start: "2025-12-19", end: "2026-03-18" });
  assert.ok(r.r !== null && r.r > 0.7, `r ${r.r}`);
  assert.equal(r.strength, "strong");
  assert.equal(r.direction, "positive");
  assert.equal(r.confidence, "high");
  // p is reported to what an estimated n_eff supports: "< 0.001" is the floor (statistics.md §6)
  assert.equal(r.p_value, 0.001);
  assert.equal(r.p_text, "< 0.001");
  assert.equal(r.detrend, "weekday_trend");
  assert.deepEqual(r.adjustments.detrend_applied, ["weekday_trend"]);
  assert.equal(r.adjustments.multiple_testing, "none");
  // days are independent here, so n_eff stays near n; the sampling noise of two correlated
  // series' autocorrelations pulls it somewhat below n (the conservative side)
  assert.ok(r.n_eff !== null && r.n_eff > 0.6 * r.n_pairs && r.n_eff <= r.n_pairs, `${r.n_eff}`);
  assert.ok(r.ci95 !== null && r.ci95[0] < r.r && r.r < r.ci95[1]);
  // mood is pending today, so the last pair is yesterday; sleep misses every 9th day
  assert.equal(r.coverage_b.days_with_value, 89);
  assert.ok(r.n_pairs < 89 && r.n_pairs > 75);
  assert.deepEqual(r.first_pair, { a_date: "2025-12-19", b_date: "2025-12-19" });
  assert.equal(r.sentence, "You tend to have higher mood on days with more sleep hours.");
  assert.match(r.caveat, /^Association, not causation/);
  assert.equal(r.withheld, undefined);
  assert.match(r.definition, /^Spearman rank correlation/);
});

Deno.test("get_correlation() lag and explicit range", () => {
  const r = call({
    metric_a: "workout",
    metric_b: "mood",
    lag_days: 1,
    start: "2026-01-01",
    end: "2026-01-31",
    method: "pearson",
  });
  assert.deepEqual(r.range, { start: "2026-01-01", end: "2026-01-31" });
  assert.deepEqual(r.first_pair, { a_date: "2026-01-01", b_date: "2026-01-02" });
  assert.equal(r.n_pairs, 30);
  assert.equal(r.unit_a, null);
  assert.match(
    r.caveat,
    /workout on one day with mood 1 day later; the first pair is 2026-01-01 → 2026-01-02/,
  );
});

Deno.test("get_correlation() withholds instead of failing", () => {
  const few = call({ metric_a: "sleep_hours", metric_b: "mood", days: 10 });
  assert.equal(few.r, null);
  assert.equal(few.p_value, null);
  assert.equal(few.p_text, "n/a");
  assert.equal(few.n_eff, null);
  assert.deepEqual(few.adjustments.detrend_applied, []);
  assert.equal(few.ci95, null);
  assert.equal(few.strength, null);
  assert.deepEqual(few.withheld, { reason: "insufficient_pairs", needed: 14, have: few.n_pairs });
  const empty = call({ metric_a: "empty", metric_b: "mood" });
  assert.deepEqual(empty.withheld, { reason: "insufficient_pairs", needed: 14, have: 0 });
  assert.equal(empty.first_pair, null);
  assert.equal(empty.coverage_a.days_with_value, 0);
});

Deno.test("get_correlation() refuses bad arguments", () => {
  assert.throws(
    () => call({ metric_a: "sleep", metric_b: "mood" }),
    (e: unknown) => e instanceof AppError && e.code === "unknown_metric",
  );
  assert.throws(
    () => call({ metric_a: "sleep_hours", metric_b: "mood", start: "2025-01-01" }),
    (e: unknown) => e instanceof AppError && e.code === "range_too_large",
  );
  assert.throws(
    () => call({ metric_a: "mood", metric_b: "mood" }),
    (e: unknown) => e instanceof AppError && e.code === "invalid_request",
  );
  assert.equal(
    getCorrelation.input.safeParse({ metric_a: "a", metric_b: "b", lag_days: 8 }).success,
    false,
  );
  assert.equal(
    getCorrelation.input.safeParse({ metric_a: "a", metric_b: "b", bogus: 1 }).success,
    false,
  );
  // the same metric at a lag is autocorrelation, which is allowed
  assert.equal(call({ metric_a: "mood", metric_b: "mood", lag_days: 1 }).metric_a, "mood");
});
