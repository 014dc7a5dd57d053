import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import { assertValidResult } from "../analytics/_test_record.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getEntries } from "./get_entries.ts";

const record = syntheticMember();

Deno.test("get_entries() defaults to the 31 days ending today, newest first, in one page", () => {
  const result = getEntries.run(record, getEntries.input.parse({}));
  assertValidResult(getEntries, result);
  assert.deepEqual(result.range, { start: "2026-02-16", end: "2026-03-18" });
  assert.equal(result.rows.length, 31);
  assert.equal(result.rows[0].date, "2026-03-18");
  assert.equal(result.next_cursor, null);
  assert.equal(result.rows[0].values.mood, null);
  assert.equal(result.rows.find((r) => r.date === "2026-02-16")!.values.medication_taken, "skip");
});

Deno.test("get_entries() pages with next_cursor until it is null", () => {
  const args = { metrics: ["water_l"], start: "2026-02-20", end: "2026-03-05", limit: 6 };
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 5; page++) {
    const result = getEntries.run(record, getEntries.input.parse({ ...args, cursor }));
    assertValidResult(getEntries, result);
    seen.push(...result.rows.map((r) => r.date));
    if (result.next_cursor === null) break;
    cursor = result.next_cursor;
  }
  assert.equal(seen.length, 14);
  assert.equal(new Set(seen).size, 14);
  assert.deepEqual([seen[0], seen[13]], ["2026-03-05", "2026-02-20"]);
});

Deno.test("get_entries() rejects a foreign cursor, an unknown metric and a too-long range", () => {
  const code = (c: string) => (e: unknown) => e instanceof AppError && e.code === c;
  assert.throws(
    () => getEntries.run(record, getEntries.input.parse({ cursor: "Zm9v" })),
    code("invalid_request"),
  );
  assert.throws(
    () => getEntries.run(record, getEntries.input.parse({ metrics: ["sleep"] })),
    code("unknown_metric"),
  );
  assert.throws(
    () => getEntries.run(record, getEntries.input.parse({ start: "2025-01-01" })),
    code("range_too_large"),
  );
  assert.throws(() => getEntries.input.parse({ limit: 367 }));
});
