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
import { comparePeriods } from "./compare_periods.ts";

const today = day("2026-03-18");
const rnd = seededRandom(41);

const record = testRecord({
  columns: [
    testColumn("steps", { unit: "steps", daily_agg: "sum" }),
    testColumn("resting_hr", { unit: "bpm", direction: "lower_better" }),
    testColumn("caffeine", { direction: "neutral" }),
    testColumn("same"),
  ],
  values: {
    // 8000 ± noise, then 10000 ± noise over the last 14 days
    steps: series(today, 60, (_d, i) => (i >= 46 ? 10000 : 8000) + 1000 * (rnd() - 0.5)),
    resting_hr: series(today, 60, (_d, i) => (i >= 46 ? 66 : 60) + (rnd() - 0.5)),
    caffeine: series(today, 60, (_d, i) => (i >= 46 ? 3 : 1) + 0.2 * rnd()),
    same: series(today, 60, () => 5),
  },
});

function call(args: Record<string, unknown>) {
  const result = comparePeriods.run(record, comparePeriods.input.parse(args));
  assertValidResult(comparePeriods, result);
  return result;
}

const lastTwoWeeks = { a_start: "2026-03-05", a_end: "2026-03-18" };

Deno.test("compare_periods() defaults B to the equal window before A", () => {
  const r = call({ metric: "steps", ...lastTwoWeeks });
  assert.deepEqual([r.b.start, r.b.end], ["2026-02-19", "2026-03-04"]);
  assert.deepEqual(r.range, { start: "2026-03-05", end: "2026-03-18" });
  assert.equal(r.a.n, 14);
  assert.equal(r.b.n, 14);
  assert.ok(Math.abs(r.delta! - 2000) < 400, `delta ${r.delta}`);
  assert.equal(r.delta_pct, Math.round((r.delta! / r.b.mean!) * 1000) / 10);
  assert.ok(r.effect_size_g! > 2);
  // p is floored at "< 0.001" on output (statistics.md §6); the values are independent here, so
  // n_eff stays close to the 28 days
  assert.deepEqual([r.p_value, r.p_text], [0.001, "< 0.001"]);
  assert.ok(r.n_eff! > 20 && r.n_eff! <= 28, `n_eff ${r.n_eff}`);
  assert.equal(r.verdict, "a_better");
});

Deno.test("compare_periods() reads the verdict through the direction", () => {
  assert.equal(call({ metric: "resting_hr", ...lastTwoWeeks }).verdict, "a_worse");
  assert.equal(call({ metric: "caffeine", ...lastTwoWeeks }).verdict, "a_higher");
  // two windows inside the same regime (with this seed p ≈ 0.95; about 1 seed in 20 would
  // give a false positive at α = 0.05)
  const flat = call({
    metric: "steps",
    a_start: "2026-02-15",
    a_end: "2026-02-28",
    b_start: "2026-01-25",
    b_end: "2026-02-07",
  });
  assert.equal(flat.verdict, "no_clear_difference");
  const same = call({ metric: "same", ...lastTwoWeeks });
  assert.equal(same.verdict, "no_clear_difference");
  assert.equal(same.effect_size_g, null); // pooled SD 0
  assert.equal(same.p_value, 1);
});

Deno.test("compare_periods() withholds with fewer than 5 values in a period", () => {
  const r = call({ metric: "steps", a_start: "2026-03-16", a_end: "2026-03-19" });
  assert.equal(r.verdict, "insufficient_data");
  assert.deepEqual(r.withheld, { reason: "insufficient_data", needed: 5, have: 3 });
  assert.equal(r.effect_size_g, null);
  assert.equal(r.p_value, null);
});

Deno.test("compare_periods() refuses overlapping, half-given or oversized periods", () => {
  const refused = (args: Record<string, unknown>, code: string) =>
    assert.throws(() => call(args), (e: unknown) => e instanceof AppError && e.code === code);
  refused(
    { metric: "steps", ...lastTwoWeeks, b_start: "2026-03-01", b_end: "2026-03-06" },
    "invalid_request",
  );
  refused({ metric: "steps", ...lastTwoWeeks, b_start: "2026-03-01" }, "invalid_request");
  refused({ metric: "steps", a_start: "2024-01-01", a_end: "2026-01-01" }, "range_too_large");
  refused({ metric: "stepz", ...lastTwoWeeks }, "unknown_metric");
  assert.equal(
    comparePeriods.input.safeParse({ metric: "steps", a_start: "2026-02-30", a_end: "2026-03-01" })
      .success,
    false,
  );
});
