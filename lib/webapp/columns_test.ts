import assert from "node:assert/strict";
import { ColumnCreate } from "../record/store.ts";
import type { Column } from "../record/types.ts";
import {
  columnKeyFor,
  moveAnchor,
  readColumnForm,
  starterTemplates,
  templateInput,
} from "./columns.ts";

Deno.test("columnKeyFor() makes a valid, unique key from any label", () => {
  assert.equal(columnKeyFor("Deep work (h)", []), "deep_work_h");
  assert.equal(columnKeyFor("Café crème", []), "cafe_creme");
  assert.equal(columnKeyFor("10k run", []), "c_10k_run");
  assert.equal(columnKeyFor("💧", []), "c");
  assert.equal(columnKeyFor("Mood", ["mood", "mood_2"]), "mood_3");
  assert.match(columnKeyFor("x".repeat(200), []), /^[a-z][a-z0-9_]{0,39}$/);
});

Deno.test("starterTemplates() are all valid createColumn input", () => {
  for (const units of ["metric", "imperial"] as const) {
    for (const t of starterTemplates(units)) {
      assert.ok(ColumnCreate.safeParse(templateInput(t)).success, t.key);
    }
  }
  assert.equal(starterTemplates("imperial").find((t) => t.key === "weight")!.unit, "lb");
});

Deno.test("readColumnForm() reports each bad field by name", () => {
  const bad = readColumnForm(
    { label: "", type: "dice", goal_op: "at_least", goal_value: "x", goal_per: "week" },
    { creating: true, takenKeys: [] },
  );
  assert.equal(bad.ok, false);
  if (!bad.ok) {
    assert.deepEqual(Object.keys(bad.errors).sort(), ["goal_times", "goal_value", "label", "type"]);
  }
  const good = readColumnForm(
    { label: "Reading", type: "duration_min", unit: "min", goal_op: "none" },
    { creating: true, takenKeys: ["reading"] },
  );
  assert.ok(good.ok);
  if (good.ok) assert.equal(good.input.key, "reading_2");
});

Deno.test("moveAnchor() returns to the arrow pressed, the other one at an end, the card when alone", () => {
  const col = (key: string, archived = false) => ({ key, archived }) as Column;
  const list = [col("a"), col("b"), col("old", true), col("c")];
  assert.equal(moveAnchor(list, "b", "up"), "col-b-up");
  assert.equal(moveAnchor(list, "b", "down"), "col-b-down");
  // Archived columns do not count: "c" is the last active one, "a" the first.
  assert.equal(moveAnchor(list, "c", "down"), "col-c-up");
  assert.equal(moveAnchor(list, "a", "up"), "col-a-down");
  assert.equal(moveAnchor([col("a"), col("old", true)], "a", "up"), "col-a");
});
