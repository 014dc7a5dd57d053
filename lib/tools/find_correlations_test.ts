import assert from "node:assert/strict";
import type { DayValue } from "../record/types.ts";
import {
  assertValidResult,
  day,
  seededRandom,
  series,
  testColumn,
  testRecord,
} from "../analytics/_test_record.ts";
import { correlate } from "../analytics/correlation.ts";
import { screenCorrelations } from "../analytics/correlation_screen.ts";
import { findCorrelations } from "./find_correlations.ts";

const today = day("2026-03-18");
const rnd = seededRandom(21);
const same = series(today, 200, () => rnd());
const before = series(today, 200, () => rnd());
const noise = series(today, 200, () => rnd());
// target = same-day driver + yesterday's driver + a little noise
const target = new Map<number, DayValue>();
for (let d = today - 199; d <= today; d++) {
  const prev = before.get(d - 1);
  if (typeof prev !== "number") continue;
  target.set(d, 2 * (same.get(d) as number) + prev + 0.3 * rnd());
}
const record = testRecord({
  columns: [
    testColumn("target"),
    testColumn("noise"),
    testColumn("same_day"),
    testColumn("day_before"),
    testColumn("rare_flag", { type: "boolean" }),
    testColumn("old_driver", { archived: true }),
  ],
  values: {
    target,
    noise,
    same_day: same,
    day_before: before,
    rare_flag: series(today, 200, (_d, i) => i !== 50),
    old_driver: same,
  },
});

function call(args: Record<string, unknown>) {
  const result = findCorrelations.run(record, findCorrelations.input.parse(args));
  assertValidResult(findCorrelations, result);
  return result;
}

Deno.test("find_correlations() ranks real links and controls false discoveries", () => {
  const r = call({ metric: "target" });
  assert.equal(r.max_lag, 1);
  // noise, same_day, day_before at lags 0 and 1; rare_flag withheld; archived column skipped
  assert.equal(r.tests_run, 6);
  assert.deepEqual(
    r.withheld_pairs.map((w) => [w.other_metric, w.lag_days, w.reason]),
    [["rare_flag", 0, "boolean_class_too_small"], ["rare_flag", 1, "boolean_class_too_small"]],
  );
  assert.deepEqual(
    r.results.slice(0, 2).map((x) => [x.other_metric, x.lag_days]),
    [["same_day", 0], ["day_before", 1]],
  );
  assert.ok(!r.results.some((x) => x.other_metric === "noise"));
  for (const x of r.results) {
    assert.ok(x.q_value < 0.1 && x.q_value >= x.p_value);
  }
  for (let i = 1; i < r.results.length; i++) {
    assert.ok(Math.abs(r.results[i - 1].r) >= Math.abs(r.results[i].r));
  }
  assert.equal(
    r.results[0].sentence,
    "You tend to have higher target on days with higher same day.",
  );
});

Deno.test("find_correlations() respects top and max_lag, and its q-values are BH over all tests", () => {
  const r = call({ metric: "target", max_lag: 0, top: 1 });
  assert.equal(r.tests_run, 3);
  assert.equal(r.results.length, 1);
  assert.ok(r.discoveries >= 1);
  // BH by hand over the three lag-0 tests: q of the smallest p is min_j p_(j)·3/j
  const range = { start: today - 179, end: today };
  const [targetColumn, ...others] = record.columns;
  const ps = others.slice(0, 3)
    .map((o) =>
      correlate({
        record,
        a: o,
        b: targetColumn,
        lag: 0,
        range,
        method: "spearman",
        detrend: "weekday_trend",
      }).p
    )
    .sort((a, b) => a - b);
  const expected = Math.min(...ps.map((p, i) => (p * 3) / (i + 1)));
  const screen = screenCorrelations({
    record,
    target: targetColumn,
    range,
    maxLag: 0,
    detrend: "weekday_trend",
  });
  assert.equal(screen.discoveries[0].q, expected);
});

Deno.test("find_correlations() on an empty target withholds every pair", () => {
  const empty = testRecord({
    columns: [testColumn("target"), testColumn("other")],
    values: { other: series(today, 100, () => rnd()) },
  });
  const r = findCorrelations.run(empty, findCorrelations.input.parse({ metric: "target" }));
  assertValidResult(findCorrelations, r);
  assert.equal(r.tests_run, 0);
  assert.equal(r.results.length, 0);
  assert.equal(r.withheld_pairs.length, 2);
  assert.equal(r.withheld_pairs[0].reason, "insufficient_pairs");
});
