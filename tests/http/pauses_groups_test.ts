/**
 * Groups of columns and pauses over the data API (issue #25): a column's `group` is set, changed
 * and cleared by createColumn/updateColumn and carried by list_columns and the JSON export; a
 * pause makes its days count as skipped in every tool (get_streak here), so a week away breaks no
 * streak, and deleting it gives the days back as they were.
 */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { assertSelector, type Browser, proxyAs, signedUpBrowser } from "./_web.ts";

// The test clock is 2026-11-22T12:00Z: the member's today (UTC).
const day = (n: number) => `2026-11-${String(n).padStart(2, "0")}`;

async function proxyError(b: Browser, body: Record<string, unknown>) {
  const res = await b.request("/api/proxy", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${b.session}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function streak(b: Browser) {
  const out = await proxyAs(b, {
    action: "callTool",
    name: "get_streak",
    arguments: { metric: "meditate" },
  });
  assert.ok(!out.isError, JSON.stringify(out));
  return out.structuredContent;
}

Deno.test("domain: a pause keeps a streak, and groups and pauses travel in the data API and export", async (t) => {
  await using app = await makeApp();
  const b = await signedUpBrowser(app, "away");

  await t.step("createColumn and updateColumn set, change and clear a group", async () => {
    const created = await proxyAs(b, {
      action: "createColumn",
      key: "meditate",
      label: "Meditate",
      type: "boolean",
      goal: { op: "true", value: null, per: "day", times: null },
      missing_policy: "breaks",
      group: "Morning",
    });
    assert.equal(created.column.group, "Morning");
    const moved = await proxyAs(b, { action: "updateColumn", key: "meditate", group: " Mind " });
    assert.equal(moved.column.group, "Mind");
    const cleared = await proxyAs(b, { action: "updateColumn", key: "meditate", group: "" });
    assert.equal(cleared.column.group, undefined);
    await proxyAs(b, { action: "updateColumn", key: "meditate", group: "Mind" });
    const list = await proxyAs(b, { action: "listColumns" });
    assert.equal(list.columns[0].group, "Mind");
  });

  await t.step("a group longer than 40 characters is a clear 400", async () => {
    const res = await proxyError(b, {
      action: "updateColumn",
      key: "meditate",
      group: "x".repeat(41),
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "invalid_request");
  });

  await t.step("a week away without a pause breaks the streak", async () => {
    for (let n = 1; n <= 22; n++) {
      if (n >= 11 && n <= 15) continue; // away from 11 to 15 November
      await proxyAs(b, { action: "saveEntry", date: day(n), values: { meditate: true } });
    }
    const s = await streak(b);
    assert.equal(s.current.length, 7);
    assert.equal(s.longest.length, 10);
  });

  let pauseId = "";
  await t.step("createPause over the days away keeps the streak unbroken", async () => {
    const made = await proxyAs(b, {
      action: "createPause",
      start: day(11),
      end: day(15),
      columns: ["meditate"],
    });
    pauseId = made.pause.id;
    assert.deepEqual(
      { start: made.pause.start, end: made.pause.end, columns: made.pause.columns },
      { start: day(11), end: day(15), columns: ["meditate"] },
    );
    const s = await streak(b);
    // Skip days are neutral: the 17 logged days form one run, the 5 paused ones are not counted.
    assert.equal(s.current.length, 17);
    assert.equal(s.current.start, day(1));
    assert.equal(s.skipped_days_in_current, 5);
  });

  await t.step("bad pauses are clear 400s, never a 500", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ start: day(15), end: day(11) }, "invalid_date"],
      [{ start: "2026-02-30", end: day(11) }, "invalid_date"],
      [{ start: day(1), end: day(2), columns: ["nope"] }, "unknown_column"],
      [{ start: "2026-01-01", end: "2027-06-01" }, "invalid_date"],
    ];
    for (const [fields, code] of cases) {
      const res = await proxyError(b, { action: "createPause", ...fields });
      assert.equal(res.status, 400, JSON.stringify(fields));
      assert.equal(res.body.code, code, JSON.stringify(res.body));
    }
    const gone = await proxyError(b, { action: "deletePause", id: "no-such-pause" });
    assert.equal(gone.status, 404);
  });

  await t.step("the JSON export carries the group and the pauses, not as entries", async () => {
    const out = await proxyAs(b, { action: "exportRecord", format: "json" });
    assert.equal(out.columns[0].group, "Mind");
    assert.deepEqual(out.pauses.map((p: { id: string }) => p.id), [pauseId]);
    const dates = out.entries.map((e: { date: string }) => e.date);
    assert.ok(!dates.includes(day(12)), "a paused day is not written as an entry");
  });

  await t.step("deletePause gives the days back as they were", async () => {
    await proxyAs(b, { action: "deletePause", id: pauseId });
    assert.deepEqual((await proxyAs(b, { action: "listPauses" })).pauses, []);
    assert.equal((await streak(b)).current.length, 7);
  });

  await t.step(
    "a pause of every column covering today keeps an unlogged today from risk",
    async () => {
      await proxyAs(b, { action: "deleteEntry", date: day(22) });
      assert.equal((await streak(b)).status, "at_risk");
      await proxyAs(b, { action: "createPause", start: day(22), end: day(29) });
      const s = await streak(b);
      assert.equal(s.status, "active");
      assert.equal(s.current.length, 6);
    },
  );

  await t.step(
    "Today reads a paused, unlogged day as Paused, with no Clear that could do nothing",
    async () => {
      const { status, html } = await b.get("/app");
      assert.equal(status, 200);
      assertSelector(html, "#s-meditate .state-paused", { count: 1, text: /^Paused$/ });
      assertSelector(html, 'button[name="clear"][value="meditate"]', { count: 0 });
    },
  );

  await t.step("deleting the account deletes its pauses", async () => {
    const memberId = (await app.kv.get<string>(keys.username("away"))).value!;
    assert.notEqual((await app.kv.get(keys.pauses(memberId))).value, null);
    const res = await b.request("/api/auth", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${b.session}` },
      body: JSON.stringify({ action: "deleteAccount", confirmUsername: "away" }),
    });
    assert.equal(res.status, 200, await res.text());
    assert.equal((await app.kv.get(keys.pauses(memberId))).value, null);
  });
});
