import assert from "node:assert/strict";
import { parseDay } from "../foundation/dates.ts";
import { computeStreak } from "../analytics/streak.ts";
import { isPaused, withPauses } from "./pauses.ts";
import type { Column, DayValue } from "./types.ts";

const d = (text: string) => parseDay(text)!;
const MEDITATE: Column = {
  key: "meditate",
  label: "Meditate",
  type: "boolean",
  unit: null,
  scale_min: null,
  scale_max: null,
  direction: "higher_better",
  daily_agg: "any",
  goal: { op: "true", value: null, per: "day", times: null },
  missing_policy: "breaks",
  archived: false,
};

/** Yes on 1–10 and 16–21 November 2026, a logged "no" on the 13th. */
function values(): Map<string, ReadonlyMap<number, DayValue>> {
  const series = new Map<number, DayValue>();
  for (let n = 1; n <= 21; n++) {
    if (n < 11 || n > 15) series.set(d(`2026-11-${String(n).padStart(2, "0")}`), true);
  }
  series.set(d("2026-11-13"), false);
  return new Map([["meditate", series]]);
}

Deno.test("withPauses() reads paused days as skips up to today, and a logged value wins", () => {
  const pauses = [{ start: d("2026-11-11"), end: d("2026-11-30"), columns: ["meditate"] }];
  const today = d("2026-11-22");
  const out = withPauses(values(), [MEDITATE], pauses, today).get("meditate")!;
  assert.equal(out.get(d("2026-11-11")), "skip");
  assert.equal(out.get(d("2026-11-13")), false, "a logged no is kept");
  assert.equal(out.get(d("2026-11-16")), true, "a logged yes is kept");
  assert.equal(out.get(today), "skip");
  assert.equal(out.get(today + 1), undefined, "no skip after today");
  const days = [...out.keys()];
  assert.deepEqual(days, days.toSorted((a, b) => a - b), "ascending, as a stored series");
  assert.ok(isPaused(pauses, "meditate", today) && !isPaused(pauses, "other", today));
});

Deno.test("computeStreak() keeps a run across a pause and breaks it without one", () => {
  const today = d("2026-11-22");
  const plain = computeStreak(MEDITATE, values().get("meditate")!, today);
  assert.equal(plain.current?.length, 6);
  // Paused 11–15 except the logged "no" on the 13th, which still breaks the run.
  const pauses = [{ start: d("2026-11-11"), end: d("2026-11-15"), columns: null }];
  const paused = computeStreak(
    MEDITATE,
    withPauses(values(), [MEDITATE], pauses, today).get("meditate")!,
    today,
  );
  assert.equal(paused.current?.length, 6, "a logged no inside the pause still breaks it");
  const clean = values();
  (clean.get("meditate") as Map<number, DayValue>).delete(d("2026-11-13"));
  const kept = computeStreak(
    MEDITATE,
    withPauses(clean, [MEDITATE], pauses, today).get("meditate")!,
    today,
  );
  assert.equal(kept.current?.length, 16);
  assert.equal(kept.skippedDaysInCurrent, 5);
});
