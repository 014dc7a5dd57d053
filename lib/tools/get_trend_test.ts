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
import { getTrend } from "./get_trend.ts";

const today = day("2026-03-18");
const rnd = seededRandom(31);

const record = testRecord({
  columns: [
    testColumn("sleep", { unit: "h" }),
    testColumn("weight", { unit: "kg", direction: "lower_better" }),
    testColumn("noise", { direction: "neutral" }),
    testColumn("sparse"),
    testColumn("constant"),
    testColumn("flag", { type: "boolean" }),
  ],
  values: {
    // 7 h for the previous 28 days, 8 h for the last 28 (with noise), one skip
    sleep: series(today, 56, (_d, i) => (i === 40 ? "skip" : (i < 28 ? 7 : 8) + rnd() - 0.5)),
    // a steady loss of 0.05 kg/day
    weight: series(today, 56, (_d, i) => 85 - 0.05 * i + 0.1 * (rnd() - 0.5)),
    noise: series(today, 56, () => rnd()),
    sparse: series(today, 56, (_d, i) => (i % 5 === 0 ? rnd() : undefined)),
    constant: series(today, 56, () => 4),
    flag: series(today, 56, (_d, i) => (i < 28 ? i % 4 === 0 : i % 4 !== 0)),
  },
});

function call(args: Record<string, unknown>) {
  const result = getTrend.run(record, getTrend.input.parse(args));
  assertValidResult(getTrend, result);
  return result;
}

Deno.test("get_trend() a step up in a higher-is-better metric is improving", () => {
  const r = call({ metric: "sleep" });
  assert.deepEqual(r.range, { start: "2026-02-19", end: "2026-03-18" });
  assert.deepEqual(r.previous_range, { start: "2026-01-22", end: "2026-02-18" });
  assert.equal(r.n_previous, 28);
  assert.equal(r.n_current, 27); // one skip
  assert.ok(Math.abs(r.current_mean! - 8) < 0.2 && Math.abs(r.previous_mean! - 7) < 0.2);
  assert.equal(r.delta, Math.round((r.current_mean! - r.previous_mean!) * 100) / 100);
  assert.deepEqual([r.p_value, r.p_text], [0.001, "< 0.001"]); // floored on output (#12)
  assert.equal(r.verdict, "improving");
  assert.equal(r.withheld, undefined);
});

Deno.test("get_trend() a decrease in a lower-is-better metric is improving, with its slope", () => {
  const r = call({ metric: "weight" });
  assert.equal(r.verdict, "improving");
  assert.ok(Math.abs(r.slope_per_week! - -0.35) < 0.02, `slope ${r.slope_per_week}`);
  assert.ok(r.delta! < 0);
});

Deno.test("get_trend() noise and constants are stable; neutral metrics only increase/decrease", () => {
  assert.equal(call({ metric: "noise" }).verdict, "stable");
  const flat = call({ metric: "constant" });
  assert.equal(flat.verdict, "stable");
  assert.equal(flat.p_value, null); // Mann–Kendall is undefined without two distinct values
  assert.equal(flat.delta, 0);
  const flag = call({ metric: "flag" });
  assert.equal(flag.verdict, "improving"); // true rate 25 % → 75 %
  assert.equal(flag.current_mean, 0.75);
  const neutral = testRecord({
    columns: [testColumn("x", { direction: "neutral" })],
    values: { x: series(today, 56, (_d, i) => i) },
  });
  const up = getTrend.run(neutral, getTrend.input.parse({ metric: "x" }));
  assert.equal(up.verdict, "increasing");
});

Deno.test("get_trend() too few values is a withheld verdict, not an error", () => {
  const r = call({ metric: "sparse" });
  assert.equal(r.verdict, "insufficient_data");
  // every 5th day: 6 values in each 28-day window
  assert.deepEqual(r.withheld, { reason: "insufficient_data", needed: 8, have: 6 });
  assert.equal(r.p_value, null);
  assert.equal(r.slope_per_week, null);
  const empty = testRecord({ columns: [testColumn("x")], values: {} });
  const e = getTrend.run(empty, getTrend.input.parse({ metric: "x", days: 7 }));
  assertValidResult(getTrend, e);
  assert.equal(e.current_mean, null);
  assert.equal(e.delta_pct, null);
});

Deno.test("get_trend() bad arguments", () => {
  assert.throws(
    () => call({ metric: "slep" }),
    (e: unknown) => e instanceof AppError && e.code === "unknown_metric",
  );
  assert.equal(getTrend.input.safeParse({ metric: "sleep", days: 184 }).success, false);
  assert.equal(getTrend.input.safeParse({ metric: "sleep", start: "2026-01-01" }).success, false);
});

Deno.test("get_trend() states no p and no verdict under 12 effective days, and says why", () => {
  // a random walk: each day is yesterday plus a little, so 56 days carry few independent ones
  const walk = seededRandom(7);
  let level = 0;
  const persistent = testRecord({
    columns: [testColumn("x", { label: "Focus" })],
    values: { x: series(today, 56, () => (level += walk() - 0.5)) },
  });
  const r = getTrend.run(persistent, getTrend.input.parse({ metric: "x" }));
  assertValidResult(getTrend, r);
  assert.equal(r.verdict, "insufficient_data");
  assert.equal(r.p_value, null);
  assert.equal(r.p_text, "n/a");
  assert.equal(r.withheld?.reason, "insufficient_effective_days");
  assert.equal(r.withheld?.needed, 12);
  assert.ok(r.n_eff! < 12 && r.persistence! > 0.8, `n_eff ${r.n_eff}, φ ${r.persistence}`);
  assert.match(r.sentence, /count as about \d+ independent days, under the 12 a trend test needs/);
  assert.doesNotMatch(r.sentence, /improving|worsening|increasing|decreasing|stable|p [<0-9]/);
});

Deno.test("get_trend() a 28-day call names the 90-day verdict when it differs", () => {
  // a slow rise, 0.003 a day under noise of SD 0.29: too slow to show in 56 days, clear in 180
  const noise = seededRandom(11);
  const longRecord = testRecord({
    columns: [testColumn("x", { label: "Energy" })],
    values: { x: series(today, 180, (_d, i) => 0.003 * i + noise()) },
  });
  const r = getTrend.run(longRecord, getTrend.input.parse({ metric: "x" }));
  assertValidResult(getTrend, r);
  assert.equal(r.verdict, "stable");
  assert.deepEqual([r.longer_window?.days, r.longer_window?.verdict], [90, "improving"]);
  assert.equal(r.longer_window?.agrees, false);
  assert.match(
    r.sentence,
    /^No clear change in your energy .* Over 90-day windows it reads improving instead/,
  );
  const long = getTrend.run(longRecord, getTrend.input.parse({ metric: "x", days: 90 }));
  assert.equal(long.longer_window, null); // already the longer window
  const short = getTrend.run(record, getTrend.input.parse({ metric: "sleep" }));
  assert.equal(short.longer_window, null); // the record has no 180 days
});
