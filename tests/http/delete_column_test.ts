/**
 * `deleteColumn` (issue #25: "delete a column (with its values) as well as archive it"), over
 * `app.request` on a fresh KV: the column and every value logged in it leave the record, the
 * exports and the tools; a day left with nothing is gone; a large record is swept in parts; a new
 * column under the same key starts empty.
 */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { post, proxy, registerWithToken, TEST_COLUMNS, toolCall, yearOfCsv } from "./_members.ts";

const SLEEP = TEST_COLUMNS.find((c) => c.key === "sleep_hours")!;
const MOOD = TEST_COLUMNS.find((c) => c.key === "mood")!;

Deno.test("POST /api/proxy deleteColumn", async (t) => {
  await using app = await makeApp();
  const m = await registerWithToken(app, "deleter");
  await proxy(app, m, { action: "createColumn", ...SLEEP });
  await proxy(app, m, { action: "createColumn", ...MOOD });
  const save = (date: string, values: Record<string, unknown>, note?: string) =>
    proxy(app, m, { action: "saveEntry", date, values, ...(note ? { note } : {}) });
  await save("2026-11-01", { sleep_hours: 7, mood: 3 });
  await save("2026-11-02", { sleep_hours: 6.5 }); // nothing else: the day goes with the value
  await save("2026-11-03", { sleep_hours: "skip" }, "travelling"); // the note keeps the day
  await save("2026-11-04", { mood: 4 });

  await t.step("removes the column and every value in it, a skip included", async () => {
    const done = await proxy(app, m, { action: "deleteColumn", key: "sleep_hours" });
    assert.deepEqual(done, { key: "sleep_hours", deletedValues: 3 });
    const { columns } = await proxy(app, m, { action: "listColumns" }) as {
      columns: { key: string }[];
    };
    assert.deepEqual(columns.map((c) => c.key), ["mood"]);
    const { entries } = await proxy(app, m, {
      action: "getEntries",
      start: "2026-11-01",
      end: "2026-11-04",
    });
    assert.deepEqual(
      (entries as { date: string; values: unknown; note: unknown }[]).map((e) => [
        e.date,
        e.values,
        e.note,
      ]),
      [
        ["2026-11-01", { mood: 3 }, null],
        ["2026-11-03", {}, "travelling"],
        ["2026-11-04", { mood: 4 }, null],
      ],
    );
  });

  await t.step("its values are gone from both exports and from the tools", async () => {
    const json = await proxy(app, m, { action: "exportRecord", format: "json" });
    assert.ok(!JSON.stringify(json).includes("sleep_hours"), "JSON export");
    const csv = await proxy(app, m, { action: "exportRecord", format: "csv" });
    assert.ok(!JSON.stringify(csv).includes("sleep_hours"), "CSV export");
    const streak = await post(
      app,
      "/api/mcp",
      toolCall("get_streak", { metric: "sleep_hours" }),
      m.token,
    );
    const result = (streak.body as { result: { isError?: boolean } }).result;
    assert.equal(result.isError, true, "the tools no longer know the column");
  });

  await t.step("an unknown key answers unknown_column and changes nothing", async () => {
    const res = await post(app, "/api/proxy", {
      action: "deleteColumn",
      key: "sleep_hours",
    }, m.sessionToken);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "unknown_column");
  });

  await t.step("a new column under the same key starts empty", async () => {
    await proxy(app, m, { action: "createColumn", ...SLEEP });
    const json = await proxy(app, m, { action: "exportRecord", format: "json" }) as {
      entries: { values: Record<string, unknown> }[];
    };
    assert.ok(json.entries.every((e) => !("sleep_hours" in e.values)));
  });

  await t.step("an API token (read only) cannot delete", async () => {
    const res = await post(app, "/api/proxy", { action: "deleteColumn", key: "mood" }, m.token);
    assert.equal(res.status, 403);
  });
});

Deno.test("deleteColumn: 1,200 days of values are swept in parts, every one of them", async () => {
  await using app = await makeApp();
  const m = await registerWithToken(app, "bigdeleter");
  for (const column of TEST_COLUMNS) await proxy(app, m, { action: "createColumn", ...column });
  const report = await proxy(app, m, {
    action: "importRecord",
    csv: yearOfCsv("2026-11-21", 1200),
  });
  assert.equal(report.imported, 1200);
  const done = await proxy(app, m, { action: "deleteColumn", key: "steps" });
  // Every day of the file has a step count: more than one part's 500 days.
  assert.deepEqual(done, { key: "steps", deletedValues: 1200 });
  const json = await proxy(app, m, { action: "exportRecord", format: "json" }) as {
    entries: { values: Record<string, unknown> }[];
  };
  assert.equal(json.entries.length, 1200, "every day keeps its other values");
  assert.ok(json.entries.every((e) => !("steps" in e.values)));
});
