/**
 * Real sizes on the limited KV (issue #19): the three-year member and the 1,000-member instance of
 * tests/_big_instance.ts, exported, imported, deleted and migrated through the same paths a
 * member or an operator uses, on a KV that refuses what the strictest supported KV refuses.
 */

import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { makeApp, type TestApp } from "../_helpers.ts";
import { post, registerWithToken } from "./_members.ts";
import { deleteThroughApi, keysOf, snapshot } from "./_deletion.ts";
import {
  buildInstance,
  buildThreeYearMember,
  THREE_YEAR_COLUMNS,
  threeYearEntries,
} from "../_big_instance.ts";
import { FIXTURE_TODAY } from "../_big_instance.ts";
import { formatDay } from "../../lib/foundation/dates.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { DATA_FORMAT_VERSION, migrate } from "../../lib/operations/migrations.ts";
import type { Member } from "../../lib/accounts/accounts.ts";
import type { EntryView } from "../../lib/record/store.ts";

/** `exportRecord` through /api/proxy with the member's session. */
async function exportOf(t: TestApp, sessionToken: string, format: "json" | "csv") {
  const res = await post(t, "/api/proxy", { action: "exportRecord", format }, sessionToken);
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  return res.body;
}

/** Every entry of the fixture's seed, as the export shows it. */
function expectedEntries(): EntryView[] {
  return threeYearEntries(19, FIXTURE_TODAY, 0).map(({ day, entry }) => ({
    date: formatDay(day),
    values: entry.values,
    note: entry.note,
  }));
}

Deno.test("real size: the three-year member's export is complete, as JSON and as CSV", async () => {
  await using t = await makeApp();
  const member = await buildThreeYearMember(t.kv, { clock: t.clock });
  const json = await exportOf(t, member.sessionToken, "json");
  assert.deepEqual(json.columns, member.columns);
  assert.deepEqual(json.entries, expectedEntries());
  const table: string[][] = parse((await exportOf(t, member.sessionToken, "csv")).csv as string);
  assert.deepEqual(table[0], ["date", ...THREE_YEAR_COLUMNS.map((c) => c.key), "note"]);
  assert.equal(table.length - 1, member.entryDays);
  const expected = expectedEntries();
  table.slice(1).forEach((row, i) => {
    assert.equal(row[0], expected[i].date);
    assert.equal(row[13], expected[i].note ?? "", row[0]);
    THREE_YEAR_COLUMNS.forEach((c, j) => {
      const value = expected[i].values[c.key];
      assert.equal(row[j + 1], value === undefined ? "" : String(value), `${row[0]} ${c.key}`);
    });
  });
});

Deno.test("real size: the three-year CSV export imports into a fresh member and exports the same", async () => {
  await using t = await makeApp();
  const source = await buildThreeYearMember(t.kv, { clock: t.clock });
  const csv = (await exportOf(t, source.sessionToken, "csv")).csv as string;
  const target = await registerWithToken(t, "fresh_member");
  for (const column of THREE_YEAR_COLUMNS) {
    const res = await post(
      t,
      "/api/proxy",
      { action: "createColumn", ...column },
      target.sessionToken,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
  const imported = await post(
    t,
    "/api/proxy",
    { action: "importRecord", format: "routine-tracker", csv },
    target.sessionToken,
  );
  assert.equal(imported.status, 200, JSON.stringify(imported.body).slice(0, 300));
  assert.equal(imported.body.committed, true);
  assert.equal(imported.body.imported, source.entryDays);
  // 900 of these days weigh more than one commit may hold: two parts, each within the limits.
  assert.equal(imported.body.parts, 2);
  const before = await exportOf(t, source.sessionToken, "json");
  const after = await exportOf(t, target.sessionToken, "json");
  assert.deepEqual(after.columns, before.columns);
  assert.deepEqual(after.entries, before.entries);
  assert.equal((await exportOf(t, target.sessionToken, "csv")).csv, csv);
  const again = await post(
    t,
    "/api/proxy",
    { action: "importRecord", format: "routine-tracker", csv },
    target.sessionToken,
  );
  assert.equal(again.body.imported, 0, "the same file again changes nothing");
});

Deno.test("real size: deleting the three-year member and one of 1,000 members leaves nothing of theirs", async () => {
  await using t = await makeApp();
  const three = await buildThreeYearMember(t.kv, { clock: t.clock });
  const { members } = await buildInstance(t.kv, { clock: t.clock });
  const one = members[500];
  assert.ok((await keysOf(t.kv, three)).length > three.entryDays);
  const before = await snapshot(t.kv);
  const theirs = new Set([...await keysOf(t.kv, three), ...await keysOf(t.kv, one)]);
  await deleteThroughApi(t, three);
  await deleteThroughApi(t, one);
  assert.deepEqual(await keysOf(t.kv, three), []);
  assert.deepEqual(await keysOf(t.kv, one), []);
  const after = await snapshot(t.kv);
  const changed = [...before].filter(([k, v]) => !theirs.has(k) && after.get(k) !== v);
  assert.deepEqual(changed, [], "nobody else's keys changed");
  // The others still sign in and read their record.
  for (const other of [members[0], members[499], members[501], members[999]]) {
    const entries = (await exportOf(t, other.sessionToken, "json")).entries as unknown[];
    assert.equal(entries.length, 5);
  }
});

/**
 * Turns the instance into what a format-0 release left: no tiers, no session index, no index of
 * OAuth secrets, old keys.
 */
async function ageToFormatZero(kv: Deno.Kv): Promise<void> {
  await kv.delete(keys.dataFormat());
  const writes: [Deno.KvKey, unknown][] = [];
  const deletes: Deno.KvKey[] = [];
  for await (const e of kv.list<Member>({ prefix: keys.membersAll() })) {
    const { membership: _m, paidUntil: _p, ...old } = e.value;
    writes.push([e.key, old]);
  }
  for await (const e of kv.list({ prefix: ["sessions_by_member"] })) deletes.push(e.key);
  for await (const e of kv.list({ prefix: ["oauth_member_secrets"] })) deletes.push(e.key);
  // the coach's due-time index came with issue #21 (step 4 builds it from coach_due)
  // and the rate limiter's sweep index (step 6)
  for (const prefix of [["coach_due_at"], ["coach_due_by_member"], ["rate_limit_sweep"]]) {
    for await (const e of kv.list({ prefix })) deletes.push(e.key);
  }
  for (let i = 0; i < 1200; i++) writes.push([["cache_epoch_seen", `instance-${i}`], i]);
  writes.push([["cache_epoch"], 7]);
  for (const [key, value] of writes) await kv.set(key, value);
  for (const key of deletes) await kv.delete(key);
}

Deno.test("real size: the migrations bring a 1,000-member instance of format 0 up within the limits", async () => {
  await using t = await makeApp();
  const { members } = await buildInstance(t.kv, { clock: t.clock });
  await ageToFormatZero(t.kv);
  const report = await migrate(t.kv);
  assert.equal(report.from, 0);
  assert.equal(report.to, DATA_FORMAT_VERSION);
  let active = 0;
  for await (const _ of t.kv.list({ prefix: keys.coachDueAll() })) active++;
  assert.ok(active > 0);
  let counters = 0;
  for await (const _ of t.kv.list({ prefix: keys.rateLimitPrefix() })) counters++;
  assert.ok(counters >= 3000);
  // Step 4: each member's access and refresh token and spent code; step 5: the coach's due index;
  // step 6: every rate-limit counter indexed for the sweep (issue #21).
  assert.deepEqual(
    report.steps.map((s) => s.changed),
    [1000, 1000, 1201, 3000, active, counters],
  );
  assert.deepEqual((await migrate(t.kv)).steps, [], "a second run has nothing to do");
  for await (const e of t.kv.list<Member>({ prefix: keys.membersAll() })) {
    assert.equal(e.value.membership, "free");
  }
  let indexed = 0;
  for await (const _ of t.kv.list({ prefix: ["sessions_by_member"] })) indexed++;
  assert.equal(indexed, members.length);
  assert.equal((await t.kv.get(["cache_epoch"])).versionstamp, null);
  // A password change from a new session now ends the session the old format left unindexed.
  const m = members[42];
  const login = await post(t, "/api/auth", {
    action: "login",
    username: m.username,
    password: m.password,
  });
  assert.equal(login.status, 200, JSON.stringify(login.body));
  const changed = await post(t, "/api/auth", {
    action: "changePassword",
    currentPassword: m.password,
    newPassword: "another long passphrase",
  }, login.body.sessionToken as string);
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  const stale = await post(t, "/api/proxy", { action: "getProfile" }, m.sessionToken);
  assert.equal(stale.status, 401);
  // Deletion finds the OAuth secrets the old format left unindexed through step 4's index.
  await deleteThroughApi(t, members[7]);
  assert.deepEqual(await keysOf(t.kv, members[7]), []);
});
