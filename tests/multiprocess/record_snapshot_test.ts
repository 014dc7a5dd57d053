/**
 * Two real service processes on one KV file (issue #22): a record loaded from its packed snapshot
 * (lib/record/record_snapshot.ts) and the days written since is the record as stored, whichever
 * process wrote, through saves, deletions, an import, and the folds of the changed days into new
 * snapshots that both processes make along the way.
 */

import assert from "node:assert/strict";
import { startProcesses } from "../_processes.ts";
import { proxy, seedYear, type TestMember } from "../http/_members.ts";
import { signUpMember } from "../http/_oauth.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { FOLD_AFTER, type RecordChanges } from "../../lib/record/record_snapshot.ts";

interface Row {
  date: string;
  values: Record<string, unknown>;
}

/** YYYY-MM-DD `n` days before today (UTC: the member lives in UTC). */
function daysAgo(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

/** A year of rows (oldest first) as `get_entries` answers through `url`, with the session. */
async function yearOf(url: string, m: TestMember): Promise<Row[]> {
  const body = await proxy(url, m, {
    action: "callTool",
    name: "get_entries",
    arguments: { start: daysAgo(365), end: daysAgo(0), limit: 366, order: "asc" },
  });
  return (body.structuredContent as { rows: Row[] }).rows;
}

/** A day's mood as `get_entries` answers through `url`. */
async function moodOn(url: string, m: TestMember, date: string): Promise<unknown> {
  const body = await proxy(url, m, {
    action: "callTool",
    name: "get_entries",
    arguments: { start: date, end: date, metrics: ["mood"] },
  });
  return (body.structuredContent as { rows: Row[] }).rows[0].values.mood;
}

Deno.test("record snapshot: two processes each answer every day as last written by the other, across folds", async () => {
  await using procs = await startProcesses({ count: 2 });
  const urls = procs.urls;
  const browser = await signUpMember(urls[0], "packed");
  const m: TestMember = { ...browser, token: "", tokenId: "" };
  await seedYear(urls[0], m, daysAgo(0)); // an import: one bulk write, no snapshot yet
  assert.deepEqual(await yearOf(urls[1], m), await yearOf(urls[0], m));

  // Enough distinct days for both processes to fold the changed days more than once.
  const written = new Map<string, number | null>();
  for (let n = 0; n < 3 * FOLD_AFTER; n++) {
    const [writer, reader] = n % 2 === 0 ? urls : [urls[1], urls[0]];
    const date = daysAgo(1 + ((n * 7) % 90));
    const mood = 1 + (n % 5);
    await proxy(writer, m, { action: "saveEntry", date, values: { mood } });
    written.set(date, mood);
    assert.equal(await moodOn(reader, m, date), mood, `${date} after save ${n}`);
    if (n % 5 === 4) {
      await proxy(reader, m, { action: "deleteEntry", date });
      written.set(date, null);
      assert.equal(await moodOn(writer, m, date), null, `${date} after deletion ${n}`);
    }
  }

  const kv = await procs.openKv();
  try {
    const head = await kv.get(keys.recordSnapshot(browser.memberId, 0));
    assert.ok(head.value, "a snapshot of the record is stored");
    const changes = await kv.get<RecordChanges>(keys.recordChanges(browser.memberId));
    const changed = changes.value?.days ?? [];
    assert.ok(changed.length <= FOLD_AFTER, `${changed.length} changed days are not folded`);
  } finally {
    kv.close();
  }
  // Both processes answer the whole year identically, and as written.
  const [a, b] = [await yearOf(urls[0], m), await yearOf(urls[1], m)];
  assert.deepEqual(a, b);
  for (const [date, mood] of written) {
    assert.equal(a.find((r) => r.date === date)?.values.mood, mood, date);
  }
});
