import assert from "node:assert/strict";
import { manualClock } from "../foundation/clock.ts";
import { AppError } from "../foundation/errors.ts";
import { moveColumn } from "./column_order.ts";
import {
  ColumnCreate,
  createColumn,
  listColumns,
  recordVersionEntry,
  updateColumn,
} from "./store.ts";
import { openLimitedKv } from "../../tests/_kv_limits.ts";

Deno.test("moveColumn() swaps neighbours, steps over archived ones and stops at the ends", async () => {
  using kv = await openLimitedKv();
  const ctx = { kv, clock: manualClock() };
  for (const key of ["a", "b", "c", "d"]) {
    await createColumn(ctx, "m1", ColumnCreate.parse({ key, label: key, type: "number" }));
  }
  await updateColumn({ ctx, memberId: "m1", key: "b", patch: { archived: true } });
  const keys = async () => (await listColumns(kv, "m1")).map((c) => c.key);
  const before = (await recordVersionEntry(kv, "m1")).value!.value;

  await moveColumn(ctx, "m1", "c", -1); // over the archived "b": active order c, a, d
  assert.deepEqual(await keys(), ["c", "b", "a", "d"]);
  assert.ok((await recordVersionEntry(kv, "m1")).value!.value > before, "a record write");

  await moveColumn(ctx, "m1", "c", -1); // already first
  await moveColumn(ctx, "m1", "d", 1); // already last
  assert.deepEqual(await keys(), ["c", "b", "a", "d"]);

  await assert.rejects(
    () => moveColumn(ctx, "m1", "zz", 1),
    (e) => e instanceof AppError && e.code === "unknown_column",
  );
});
