/**
 * The record cache keeps the most recently used records that fit in RECORD_CACHE_MB (issue #22):
 * members' agents call MCP tools through `app.request`; which records stay is read from the cache.
 */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import { parseDay } from "../../lib/foundation/dates.ts";
import { loadConfig } from "../../lib/foundation/config.ts";
import { createApp } from "../../main.ts";
import { readRecordBase, recordBytes } from "../../lib/record/member_records.ts";
import { buildMember, ONE_YEAR, THREE_YEARS } from "../_record_fixtures.ts";

const LAST_DAY = parseDay("2026-11-22")!;

/** An agent's `tools/call`; returns the structured result. */
async function call(t: TestApp, token: string, name: string, args: Record<string, unknown> = {}) {
  const res = await t.request("/api/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.result?.isError, false, JSON.stringify(body).slice(0, 300));
  return body.result.structuredContent;
}

Deno.test("record cache: the least recently used record goes first; one read since stays", async () => {
  await using t = await makeApp();
  const members = [];
  for (let i = 0; i < 4; i++) {
    const username = `member${i}`;
    members.push(
      await buildMember(t.kv, t.clock, { username, shape: ONE_YEAR, seed: i, lastDay: LAST_DAY }),
    );
  }
  const sizes = await Promise.all(
    members.map(async (m) => recordBytes(await readRecordBase(t.kv, m.memberId))),
  );
  // Room for the first three, not for a fourth.
  const bound = sizes[0] + sizes[1] + sizes[2] + Math.min(...sizes) / 2;
  await using app = await makeApp({
    kv: t.kv,
    clock: t.clock,
    config: { recordCacheBytes: bound },
  });
  const [a, b, c, d] = members;
  for (const m of [a, b, c]) await call(app, m.token, "list_columns");
  await call(app, a.token, "get_entries", { limit: 5 }); // a is now more recent than b and c
  await call(app, d.token, "list_columns");
  const records = app.app.deps.access.records;
  assert.deepEqual(
    members.map((m) => records.holds(m.memberId)),
    [true, false, true, true],
    "b, the least recently used, was dropped for d",
  );
  assert.ok(records.held.bytes <= bound);
});

Deno.test("record cache: a record larger than RECORD_CACHE_MB is served in full but not kept", async () => {
  const bound = 256 * 1024; // a packed three-year record with journals is ~490 KiB, a year's ~45
  await using t = await makeApp({ config: { recordCacheBytes: bound } });
  const big = await buildMember(t.kv, t.clock, {
    username: "three_years",
    shape: THREE_YEARS,
    seed: 7,
    lastDay: LAST_DAY,
  });
  const small = await buildMember(t.kv, t.clock, {
    username: "one_year",
    shape: ONE_YEAR,
    seed: 8,
    lastDay: LAST_DAY,
  });
  assert.ok(recordBytes(await readRecordBase(t.kv, big.memberId)) > bound);
  for (let i = 0; i < 2; i++) {
    const columns = await call(t, big.token, "list_columns");
    assert.equal(columns.columns.length, 12);
    const page = await call(t, big.token, "get_entries", {
      limit: 366,
      start: "2024-11-22",
      end: "2025-11-21",
    });
    assert.equal(page.rows.length, 365);
    assert.equal(page.rows[0].date, "2025-11-21");
    assert.equal(Object.keys(page.rows[0].values).length, 12);
  }
  await call(t, small.token, "list_columns");
  const records = t.app.deps.access.records;
  assert.equal(records.holds(big.memberId), false);
  assert.equal(records.holds(small.memberId), true, "a record that fits is kept");
});

Deno.test("caches: RECORD_CACHE_MB and RESULT_CACHE_MB bound the app's caches (defaults 64 and 16 MiB)", async () => {
  await using kv = await Deno.openKv(":memory:");
  const env = { BASE_URL: "http://localhost:8000", KV_PATH: ":memory:", LOG_FORMAT: "off" };
  for (
    const [settings, records, results] of [
      [{}, 64, 16],
      [{ RECORD_CACHE_MB: "2", RESULT_CACHE_MB: "0.5" }, 2, 0.5],
    ] as const
  ) {
    const app = createApp({ kv, config: loadConfig({ ...env, ...settings }) });
    assert.equal(app.deps.access.records.held.maxBytes, records * 1024 * 1024);
    assert.equal(app.deps.mcpResults.held.maxBytes, results * 1024 * 1024);
    await app.close();
  }
});
