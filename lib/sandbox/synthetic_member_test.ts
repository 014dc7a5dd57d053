import assert from "node:assert/strict";
import { formatDay, localDay, parseDay, weekdayOf } from "../foundation/dates.ts";
import { seededRandom } from "../analytics/_test_record.ts";
import {
  boxMuller,
  generateSyntheticRecord,
  mulberry32,
  SEED,
  SEED_STEP,
  SYNTHETIC_COLUMN_ORDER,
  SYNTHETIC_MEMBER_PROFILE,
  syntheticMember,
} from "./synthetic_member.ts";
import { TOOL_BY_NAME } from "../tools/registry.ts";

const TODAY = parseDay("2026-03-18")!;
const valueAt = (key: string, offset: number) =>
  syntheticMember().values.get(key)!.get(TODAY + offset);

Deno.test("mulberry32() agrees with an independent implementation and stays in [0, 1)", () => {
  const ours = mulberry32(SEED + SEED_STEP * 3);
  const theirs = seededRandom(SEED + SEED_STEP * 3);
  for (let i = 0; i < 1000; i++) {
    const u = ours();
    assert.equal(u, theirs());
    assert.ok(u >= 0 && u < 1);
  }
});

Deno.test("boxMuller() draws standard normals", () => {
  const next = mulberry32(7);
  const xs = Array.from({ length: 20_000 }, () => boxMuller(next));
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
  assert.ok(Math.abs(mean) < 0.03, `mean ${mean}`);
  assert.ok(Math.abs(sd - 1) < 0.03, `sd ${sd}`);
});

Deno.test("the generator is deterministic: two runs give identical records", () => {
  const a = generateSyntheticRecord(), b = generateSyntheticRecord();
  for (const key of SYNTHETIC_COLUMN_ORDER) {
    assert.deepEqual([...a.values.get(key)!], [...b.values.get(key)!], key);
  }
});

Deno.test("syntheticMember() is memoised and frozen", () => {
  const m = syntheticMember();
  assert.equal(syntheticMember(), m);
  assert.ok(Object.isFrozen(m) && Object.isFrozen(m.columns) && Object.isFrozen(m.insights));
  assert.ok(Object.isFrozen(m.columns[0]));
  assert.equal(m.synthetic, true);
});

Deno.test("syntheticMember() the frozen clock is 2026-03-18 09:30 in New York", () => {
  const m = syntheticMember();
  assert.equal(m.now, "2026-03-18T13:30:00.000Z");
  assert.equal(m.timezone, "America/New_York");
  assert.equal(formatDay(localDay(Date.parse(m.now), m.timezone)), "2026-03-18");
  assert.equal(m.today, TODAY);
  assert.equal(SYNTHETIC_MEMBER_PROFILE.display_name, "Sam Rivera (synthetic)");
});

Deno.test("syntheticMember() columns come in recipe order with the recipe's goals and policies", () => {
  const cols = syntheticMember().columns;
  assert.deepEqual(cols.map((c) => c.key), [...SYNTHETIC_COLUMN_ORDER]);
  const byKey = new Map(cols.map((c) => [c.key, c]));
  assert.deepEqual(byKey.get("workout")!.goal, { op: "true", value: null, per: "week", times: 4 });
  assert.equal(byKey.get("sleep_hours")!.goal!.value, 7.5);
  assert.equal(byKey.get("mood")!.goal, null);
  assert.equal(byKey.get("mood")!.scale_max, 5);
  assert.equal(byKey.get("steps")!.daily_agg, "sum");
  assert.equal(byKey.get("weight_kg")!.missing_policy, "neutral");
  assert.equal(byKey.get("weight_kg")!.direction, "lower_better");
  assert.equal(byKey.get("resting_hr")!.direction, "lower_better");
  assert.deepEqual(byKey.get("weight_kg")!.goal, {
    op: "at_most",
    value: 80,
    per: "day",
    times: null,
  });
});

Deno.test("syntheticMember() history spans 2025-09-15 … 2026-03-18 and today's pending columns are empty", () => {
  const m = syntheticMember();
  const first = Math.min(...m.values.get("medication_taken")!.keys());
  assert.equal(formatDay(first), "2025-09-15");
  assert.equal(TODAY - first + 1, 185);
  for (const key of ["mood", "steps", "water_l", "workout", "meditation_min"]) {
    assert.equal(valueAt(key, 0), undefined, key);
  }
  for (const key of ["sleep_hours", "weight_kg", "resting_hr", "medication_taken"]) {
    assert.notEqual(valueAt(key, 0), undefined, key);
  }
});

Deno.test("syntheticMember() engineered days carry the recipe's values", () => {
  assert.equal(valueAt("sleep_hours", -12), 9.4);
  assert.equal(valueAt("mood", -12), 2);
  assert.equal(valueAt("steps", -12), 1450);
  assert.equal(valueAt("resting_hr", -12), 74);
  assert.equal(valueAt("steps", -38), 24312);
  for (let off = -40; off <= -36; off++) {
    assert.equal(valueAt("workout", off), "skip");
    const steps = valueAt("steps", off) as number;
    if (off !== -38) assert.ok(steps >= 15500 && steps <= 17500, `steps ${off}: ${steps}`);
  }
  assert.equal(valueAt("workout", -12), "skip");
  assert.equal(valueAt("workout", -11), "skip");
  for (let off = -20; off <= -15; off++) assert.equal(valueAt("water_l", off), undefined);
  assert.equal(valueAt("meditation_min", -76), undefined);
  assert.notEqual(valueAt("meditation_min", -75), undefined);
  assert.equal(valueAt("meditation_min", -43), 0);
  assert.equal(valueAt("meditation_min", -24), 0);
  for (const off of [-150, -105, -42]) assert.equal(valueAt("medication_taken", off), false);
  assert.equal(valueAt("medication_taken", -30), "skip");
  assert.equal(valueAt("workout", -2), true);
  assert.equal(valueAt("workout", -1), false);
});

Deno.test("syntheticMember() generated values stay inside the recipe's bounds", () => {
  const m = syntheticMember();
  const values = (key: string) => [...m.values.get(key)!.values()] as number[];
  for (const v of values("sleep_hours")) {
    assert.ok(v >= 4 && v <= 10.5 && Math.round(v * 10) === v * 10);
  }
  for (const v of values("mood")) assert.ok(Number.isInteger(v) && v >= 1 && v <= 5);
  for (const v of values("water_l")) assert.ok(v >= 0.5);
  for (const v of values("meditation_min")) assert.ok(v === 0 || (v >= 10 && v <= 20));
  for (const [day] of m.values.get("weight_kg")!) assert.ok([0, 2, 4, 6].includes(weekdayOf(day)));
});

Deno.test("syntheticMember() every complete week from 2026-01-12 meets its pro-rated workout target", () => {
  const workout = syntheticMember().values.get("workout")!;
  for (let monday = parseDay("2026-01-12")!; monday + 6 < TODAY; monday += 7) {
    let done = 0, skips = 0;
    for (let d = monday; d < monday + 7; d++) {
      if (workout.get(d) === "skip") skips++;
      else if (workout.get(d) === true) done++;
    }
    assert.ok(done >= Math.ceil((4 * (7 - skips)) / 7), formatDay(monday));
  }
  let shortWeek = 0;
  for (let d = parseDay("2026-01-05")!; d < parseDay("2026-01-12")!; d++) {
    if (workout.get(d) === true) shortWeek++;
  }
  assert.equal(shortWeek, 2);
});

Deno.test("syntheticMember() random missingness is roughly at the recipe's rates and spares engineered days", () => {
  const m = syntheticMember();
  const missing = (key: string) =>
    184 - [...m.values.get(key)!.keys()].filter((d) => d < TODAY).length;
  // 184 past days; water also has the 6-day engineered gap.
  assert.ok(missing("sleep_hours") >= 1 && missing("sleep_hours") <= 12);
  assert.ok(missing("water_l") - 6 >= 6 && missing("water_l") - 6 <= 26);
  assert.ok(missing("steps") <= 10);
  assert.notEqual(valueAt("resting_hr", -12), undefined);
});

// Issue #12: the insights are the coach's (paid depth); lib/coach/coach_test.ts replays every one.
Deno.test("syntheticMember() each coach insight's evidence call reproduces its key numbers", () => {
  const m = syntheticMember();
  assert.equal(m.insights[0].type, "streak_milestone");
  const streak = m.insights[0].evidence.key_numbers;
  assert.deepEqual([streak["current.length"], streak.status, streak["longest.length"]], [
    23,
    "at_risk",
    32,
  ]);
  for (const insight of m.insights) {
    const def = TOOL_BY_NAME.get(insight.evidence.tool)!;
    const result = def.run(m, def.input.parse(insight.evidence.arguments) as never);
    for (const [path, value] of Object.entries(insight.evidence.key_numbers)) {
      // deno-lint-ignore no-explicit-any
      const got = path.split(".").reduce((node: any, part) => node?.[part], result);
      assert.deepEqual(got, value, `${insight.id} ${path}`);
    }
    assert.ok(insight.text.length > 40 && !insight.text.includes("undefined"), insight.id);
  }
});
