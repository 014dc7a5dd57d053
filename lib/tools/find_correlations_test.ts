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
import { screenCorrelations, screenRecordPairs } from "../analytics/correlation_screen.ts";
import { AppError } from "../foundation/errors.ts";
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
  // target's own pairs: noise, same_day, day_before at lags 0 and 1; rare_flag withheld;
  // archived column skipped
  assert.match(r.family_note, /, 6 of them target's own pairs\)/);
  assert.deepEqual(
    r.withheld_pairs.map((w) => [w.other_metric, w.metric, w.lag_days, w.reason]),
    [
      ["rare_flag", "target", 0, "boolean_class_too_small"],
      ["rare_flag", "target", 1, "boolean_class_too_small"],
    ],
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

/** Benjamini–Yekutieli by hand: q_(i) = min_{j ≥ i} min(1, c(m)·m·p_(j)/j), c(m) = Σ 1/i. */
function byHand(ps: number[]): Map<number, number> {
  const m = ps.length, sorted = [...ps].sort((a, b) => a - b);
  let c = 0;
  for (let i = 1; i <= m; i++) c += 1 / i;
  const q = new Map<number, number>();
  let running = 1;
  for (let j = m; j >= 1; j--) {
    running = Math.min(running, (c * m * sorted[j - 1]) / j);
    q.set(sorted[j - 1], running);
  }
  return q;
}

Deno.test("find_correlations() without metric screens every pair of the record in one Benjamini–Yekutieli family", () => {
  const r = call({ max_lag: 1, top: 20 });
  assert.equal(r.metric, null);
  assert.equal(r.family, "record");
  // 5 active columns: 10 pairs × (lag 0 + lag 1 both ways) = 30 tried; rare_flag's 12 withheld
  assert.equal(r.record_pairs, 30);
  assert.equal(r.tests_run, 18);
  assert.equal(r.withheld_pairs.length, 12);
  assert.equal(r.adjustments.multiple_testing, "benjamini_yekutieli");
  assert.equal(r.adjustments.tests_run, 18);
  const range = { start: today - 179, end: today };
  const keys = ["target", "noise", "same_day", "day_before"];
  const col = (k: string) => record.columns.find((c) => c.key === k)!;
  const ps: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    for (let j = i + 1; j < keys.length; j++) {
      for (
        const [a, b, lag] of [[keys[i], keys[j], 0], [keys[i], keys[j], 1], [
          keys[j],
          keys[i],
          1,
        ]] as const
      ) {
        ps.push(
          correlate({
            record,
            a: col(a),
            b: col(b),
            lag,
            range,
            method: "spearman",
            detrend: "weekday_trend",
          }).p,
        );
      }
    }
  }
  const q = byHand(ps);
  const screen = screenRecordPairs({ record, range, maxLag: 1, detrend: "weekday_trend" });
  for (const t of screen.tested) {
    const expected = q.get(t.correlation.p)!;
    assert.ok(Math.abs(t.q - expected) <= 1e-12 * expected, `${t.q} vs ${expected}`);
  }
  assert.deepEqual(
    r.results.slice(0, 2).map((x) => [x.other_metric, x.metric, x.lag_days]),
    [["target", "same_day", 0], ["day_before", "target", 1]],
  );
  assert.match(r.family_note, /Benjamini–Yekutieli over all 18 tests of a whole-record screen/);
});

Deno.test("find_correlations() with a metric reports each pair's q within the whole-record family, so metric after metric finds what one call finds", () => {
  const whole = call({ top: 20 });
  const found = new Set<string>();
  for (const c of record.columns.filter((c) => !c.archived)) {
    const r = call({ metric: c.key, top: 20 });
    assert.equal(r.tests_run, whole.tests_run);
    for (const x of r.results) {
      const same = whole.results.find((w) =>
        w.lag_days === x.lag_days &&
        (w.other_metric === x.other_metric && w.metric === x.metric ||
          x.lag_days === 0 && w.other_metric === x.metric && w.metric === x.other_metric)
      );
      assert.ok(same, `${x.other_metric} → ${x.metric} is in the whole-record answer`);
      assert.equal(x.q_value, same.q_value);
      assert.equal(x.p_value, same.p_value);
      found.add([x.other_metric, x.metric, x.lag_days].sort().join("|"));
    }
  }
  assert.equal(found.size, whole.results.length);
});

Deno.test("find_correlations() with family metric keeps the metric's own family and says plainly that it ignores the rest of the screen", () => {
  const r = call({ metric: "target", max_lag: 0, top: 1, family: "metric" });
  assert.equal(r.tests_run, 3);
  assert.equal(r.record_pairs, 10);
  assert.equal(r.results.length, 1);
  assert.ok(r.discoveries >= 1);
  assert.match(r.family_note, /do not account for screening other metrics too/);
  assert.match(r.family_note, /A whole-record screen tries 10 pairs/);
  // BY by hand over the three lag-0 tests
  const range = { start: today - 179, end: today };
  const [targetColumn, ...others] = record.columns;
  const ps = others.slice(0, 3).map((o) =>
    correlate({
      record,
      a: o,
      b: targetColumn,
      lag: 0,
      range,
      method: "spearman",
      detrend: "weekday_trend",
    }).p
  );
  const screen = screenCorrelations({
    record,
    target: targetColumn,
    range,
    maxLag: 0,
    detrend: "weekday_trend",
  });
  const expected = byHand(ps).get(screen.discoveries[0].correlation.p)!;
  assert.ok(Math.abs(screen.discoveries[0].q - expected) <= 1e-12 * expected);
});

Deno.test("find_correlations() refuses family metric without a metric", () => {
  assert.throws(
    () => findCorrelations.run(record, findCorrelations.input.parse({ family: "metric" })),
    (e: unknown) => e instanceof AppError && e.code === "invalid_request",
  );
});

Deno.test("find_correlations() on an empty target withholds every pair", () => {
  const empty = testRecord({
    columns: [testColumn("target"), testColumn("other")],
    values: { other: series(today, 100, () => rnd()) },
  });
  const r = findCorrelations.run(
    empty,
    findCorrelations.input.parse({ metric: "target", family: "metric" }),
  );
  assertValidResult(findCorrelations, r);
  assert.equal(r.tests_run, 0);
  assert.equal(r.results.length, 0);
  assert.equal(r.withheld_pairs.length, 2);
  assert.equal(r.withheld_pairs[0].reason, "insufficient_pairs");
});
