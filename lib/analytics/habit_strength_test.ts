import assert from "node:assert/strict";
import type { DayNumber } from "../foundation/dates.ts";
import type { DayValue } from "../record/types.ts";
import { day, testColumn } from "./_test_record.ts";
import { habitStrength, scoreAt } from "./habit_strength.ts";

const TODAY = day("2026-03-18");
const M_DAILY = 0.5 ** (1 / 13);

const pill = testColumn("pill", {
  type: "boolean",
  goal: { op: "true", value: null, per: "day", times: null },
});

/** `count` days of `value` ending yesterday, with today left out (pending). */
function run(count: number, value: (i: number) => DayValue | undefined = () => true) {
  const out = new Map<DayNumber, DayValue>();
  for (let i = 0; i < count; i++) {
    const v = value(i);
    if (v !== undefined) out.set(TODAY - count + i, v);
  }
  return out;
}

Deno.test("habitStrength() a perfect daily record reaches ≈80 % after 30 days, ≈96 % after 60, ≈99 % after 90", () => {
  for (const [days, expected] of [[30, 0.80], [60, 0.96], [90, 0.99]]) {
    const s = habitStrength(pill, run(days), TODAY);
    const score = scoreAt(s, s.asOf)!;
    assert.ok(Math.abs(score - expected) < 0.005, `${days} days: ${score}`);
    assert.ok(Math.abs(score - (1 - M_DAILY ** days)) < 1e-12);
  }
});

Deno.test("habitStrength() today is included only once it qualifies", () => {
  const pending = habitStrength(pill, run(10), TODAY);
  assert.equal(pending.asOf, TODAY - 1);
  const withToday = new Map(run(10));
  withToday.set(TODAY, true);
  const done = habitStrength(pill, withToday, TODAY);
  assert.equal(done.asOf, TODAY);
  assert.ok(scoreAt(done, TODAY)! > scoreAt(pending, TODAY - 1)!);
  withToday.set(TODAY, false);
  assert.equal(habitStrength(pill, withToday, TODAY).asOf, TODAY - 1);
});

Deno.test("habitStrength() skip days leave the score unchanged; missing and false days count 0", () => {
  const days: (DayValue | undefined)[] = [true, true, "skip", undefined, false, true];
  const s = habitStrength(pill, run(6, (i) => days[i]), TODAY);
  const at = (i: number) => scoreAt(s, TODAY - 6 + i)!;
  assert.equal(at(1), (1 - M_DAILY) * M_DAILY + (1 - M_DAILY));
  assert.equal(at(2), at(1));
  assert.equal(at(3), at(2) * M_DAILY);
  assert.equal(at(4), at(3) * M_DAILY);
  assert.equal(at(5), at(4) * M_DAILY + (1 - M_DAILY));
  assert.equal(scoreAt(s, TODAY - 7), 0);
});

Deno.test("habitStrength() a daily at-least goal earns partial credit min(1, value / target)", () => {
  const minutes = testColumn("minutes", {
    goal: { op: "at_least", value: 10, per: "day", times: null },
  });
  const s = habitStrength(minutes, run(2, (i) => [5, 25][i]), TODAY);
  const first = 0.5 * (1 - M_DAILY);
  assert.equal(scoreAt(s, TODAY - 2), first);
  assert.equal(scoreAt(s, TODAY - 1), first * M_DAILY + (1 - M_DAILY));
});

Deno.test("habitStrength() a weekly goal uses f = times / 7 and the trailing 7-day completion share", () => {
  const workout = testColumn("workout", {
    type: "boolean",
    goal: { op: "true", value: null, per: "week", times: 4 },
  });
  const s = habitStrength(workout, run(3, () => true), TODAY);
  const m = 0.5 ** (Math.sqrt(4 / 7) / 13);
  assert.equal(s.halfLifeDays, 13 / Math.sqrt(4 / 7));
  let expected = 0;
  for (const v of [1 / 4, 2 / 4, 3 / 4]) expected = expected * m + v * (1 - m);
  assert.ok(Math.abs(scoreAt(s, TODAY - 1)! - expected) < 1e-12);
  assert.deepEqual([s.times, s.perDays], [4, 7]);
});

Deno.test("habitStrength() unmeasured days of a neutral-missing column leave the score unchanged", () => {
  const weight = testColumn("weight", {
    goal: { op: "at_most", value: 80, per: "day", times: null },
    missing_policy: "neutral",
  });
  const s = habitStrength(weight, run(3, (i) => [79, undefined, 79][i]), TODAY);
  assert.equal(scoreAt(s, TODAY - 2), scoreAt(s, TODAY - 3));
});

Deno.test("habitStrength() an empty column has no score", () => {
  const s = habitStrength(pill, new Map(), TODAY);
  assert.equal(s.first, null);
  assert.equal(scoreAt(s, TODAY - 1), null);
});
