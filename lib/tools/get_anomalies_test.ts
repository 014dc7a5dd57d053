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
import { getAnomalies } from "./get_anomalies.ts";

const today = day("2026-03-18");
const rnd = seededRandom(71);
const spike = day("2026-03-06");

const record = testRecord({
  columns: [
    testColumn("resting_hr", { type: "integer", unit: "bpm", direction: "lower_better" }),
    testColumn("steps", { type: "integer" }),
    testColumn("meds", { type: "boolean" }),
    testColumn("constant"),
    testColumn("late_start"),
  ],
  values: {
    // 60–62 bpm with a 74 on the spike day and a 50 five days before today
    resting_hr: series(
      today,
      90,
      (d) => d === spike ? 74 : d === today - 5 ? 50 : 60 + Math.floor(3 * rnd()),
    ),
    steps: series(today, 90, () => 8000 + Math.round(2000 * rnd())),
    meds: series(today, 90, (_d, i) => i % 30 !== 0),
    constant: series(today, 90, () => 5),
    late_start: series(today, 20, () => rnd()), // never reaches 14 baseline values in time
  },
});

function call(args: Record<string, unknown>) {
  const result = getAnomalies.run(record, getAnomalies.input.parse(args));
  assertValidResult(getAnomalies, result);
  return result;
}

Deno.test("get_anomalies() flags a spike against the previous 28 days", () => {
  const r = call({ metric: "resting_hr" });
  assert.deepEqual(r.metrics, ["resting_hr"]);
  assert.deepEqual(r.anomalies.map((a) => [a.date, a.value, a.direction]), [
    ["2026-03-13", 50, "low"],
    ["2026-03-06", 74, "high"],
  ]);
  const a = r.anomalies[1];
  assert.equal(a.baseline_median, 61);
  // baseline values are 60, 61, 62: MAD is 1, so z = 0.6745 × (74 − 61) / 1
  assert.equal(a.robust_z, Math.round(0.6745 * 13 * 100) / 100);
  assert.equal(r.checked_days, 30);
  assert.equal(r.skipped_insufficient_baseline, 0);
  assert.equal(r.threshold, 3.5);
});

Deno.test("get_anomalies() without a metric checks every numeric column but not yes/no ones", () => {
  const r = call({});
  assert.deepEqual(r.metrics, ["resting_hr", "steps", "constant", "late_start"]);
  assert.ok(r.anomalies.every((a) => a.metric === "resting_hr"));
  // constant: MAD 0 on all 30 days; late_start: 20 days logged, day k has k−1 earlier ones,
  // so only the last 6 days (14…19 earlier values) can be checked
  assert.equal(r.skipped_zero_mad, 30);
  assert.equal(r.skipped_insufficient_baseline, 14);
  assert.equal(r.checked_days, 30 + 30 + 30 + 6);
  // a lower threshold finds more
  assert.ok(call({ threshold: 1.5 }).anomalies.length > r.anomalies.length);
});

Deno.test("get_anomalies() refuses yes/no metrics and unknown ones", () => {
  assert.throws(
    () => call({ metric: "meds" }),
    (e: unknown) => e instanceof AppError && e.code === "invalid_request",
  );
  assert.throws(
    () => call({ metric: "heart" }),
    (e: unknown) => e instanceof AppError && e.code === "unknown_metric",
  );
  assert.equal(getAnomalies.input.safeParse({ threshold: 0 }).success, false);
  const empty = getAnomalies.run(
    testRecord({ columns: [testColumn("x")], values: {} }),
    getAnomalies.input.parse({}),
  );
  assertValidResult(getAnomalies, empty);
  assert.equal(empty.checked_days, 0);
});
