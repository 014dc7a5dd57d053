/**
 * The coach on a KV without queues, through Deno's real KV Connect client (issue #21, items 2–3):
 * an app given such a KV saves entries (no write carries an enqueue, which KV Connect refuses); a
 * poll reads in proportion to the members due, not to the active ones; two instances on one KV
 * run each due member once (the poll lease).
 */

import assert from "node:assert/strict";
import { openKvConnect, startKvConnectServer } from "./server.ts";
import { systemClock } from "../../lib/foundation/clock.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { registerMember } from "../../lib/accounts/accounts.ts";
import { ColumnCreate, createColumn, saveEntry } from "../../lib/record/store.ts";
import type { StoredFindings } from "../../lib/record/types.ts";
import { coachPoll, nextDailyAt, startCoachWorker } from "../../lib/coach/worker.ts";
import { COACH_INDEX, scheduleCoach } from "../../lib/record/coach_schedule.ts";
import { markDue, unmarkDue } from "../../lib/foundation/due_index.ts";
import { createApp } from "../../main.ts";
import { testConfig } from "../../lib/foundation/config.ts";
import { post, registerWithToken } from "../http/_members.ts";

const TODAY = new Date().toISOString().slice(0, 10);

/** Registers `count` members, each with a column and one entry written with no debounce. */
async function dueMembers(kv: Deno.Kv, prefix: string, count: number): Promise<string[]> {
  const ctx = { kv, clock: systemClock, coachDebounceMs: 0 };
  return await Promise.all(Array.from({ length: count }, async (_, i) => {
    const { memberId } = await registerMember({ ...ctx, passwordIterations: 1000 }, {
      username: `${prefix}${i}`,
      password: "a long passphrase",
    });
    const column = ColumnCreate.parse({ key: "steps", label: "Steps", type: "integer" });
    await createColumn(ctx, memberId, column);
    await saveEntry({ ctx, memberId, date: TODAY, values: { steps: 4000 + i } });
    return memberId;
  }));
}

/**
 * `count` members active but not due: analysed earlier (their `coach_due` time passed) and holding
 * tomorrow's daily key, as a run leaves them — written the way a record write writes them.
 */
async function activeMembers(kv: Deno.Kv, count: number): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < count; i += 125) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(count, i + 125); j++) {
      const id = `active-${String(j).padStart(5, "0")}`;
      scheduleCoach(op, id, { now: now - 3_600_000, debounceMs: 0 });
      const done = { key: keys.coachDueAt(now - 3_600_000, id), dueAt: now - 3_600_000, id };
      unmarkDue(op, COACH_INDEX, done); // the run deleted this one…
      markDue(op, COACH_INDEX, id, nextDailyAt(now)); // …and set tomorrow's
    }
    assert.ok((await op.commit()).ok);
  }
}

async function runsOf(kv: Deno.Kv, memberId: string): Promise<number> {
  return (await kv.get<StoredFindings>(keys.coachFindings(memberId))).value?.runs ?? 0;
}

Deno.test("createApp() on a KV opened by Deno.openKv(url) with no marking (as on Deploy) saves entries", async () => {
  await using server = await startKvConnectServer();
  const kv = await openKvConnect(server);
  const app = createApp({ kv, config: testConfig() });
  const target = {
    request: async (path: string, init?: RequestInit) => await app.request(path, init),
  };
  try {
    const member = await registerWithToken(target, "deploy");
    const column = await post(target, "/api/proxy", {
      action: "createColumn",
      key: "steps",
      label: "Steps",
      type: "integer",
    }, member.sessionToken);
    assert.equal(column.status, 200, JSON.stringify(column.body));
    const saved = await post(target, "/api/proxy", {
      action: "saveEntry",
      date: TODAY,
      values: { steps: 4200 },
    }, member.sessionToken);
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
  } finally {
    await app.close();
    kv.close();
  }
});

Deno.test("coachPoll() with 10,000 active members of whom 50 are due reads in proportion to 50", async () => {
  await using server = await startKvConnectServer();
  const kv = await openKvConnect(server);
  try {
    const due = await dueMembers(kv, "due", 50);
    await activeMembers(kv, 9_950);
    server.resetCounts();
    const ran: string[] = [];
    const report = await coachPoll({
      kv,
      clock: systemClock,
      onOutcome: (id, o) => o.status === "ran" && ran.push(id),
    });
    const reads = server.counts().snapshot_read;
    console.log(`coach poll, 10,000 active / 50 due: ${reads} read round trips`);
    // each due member wrote twice (its column, then its entry): the first write's key is stale,
    // deleted without a run
    assert.equal(report.leased, true);
    assert.ok(report.seen >= 50 && report.seen <= 100, `${report.seen} due keys seen`);
    assert.deepEqual(ran.sort(), [...due].sort());
    // per due member: its coach_due (getMany of 10) and the run's own reads (state, record,
    // re-read before the commit); per page: the lease and one list. Walking 10,000 active
    // members would take 100 list pages before the first run.
    assert.ok(reads <= 50 * 6 + 10, `${reads} reads for 50 due members`);
    for (const id of due) assert.equal(await runsOf(kv, id), 1);
  } finally {
    kv.close();
  }
});

Deno.test("startCoachWorker() on two instances sharing one KV runs each due member once", async () => {
  await using server = await startKvConnectServer();
  const [a, b] = [await openKvConnect(server), await openKvConnect(server)];
  const outcomes = new Map<string, string[]>();
  const stop = new AbortController();
  try {
    const due = await dueMembers(a, "pair", 20);
    const workers = [a, b].map((kv, i) =>
      startCoachWorker({
        kv,
        clock: systemClock,
        pollMs: 20,
        signal: stop.signal,
        owner: `instance-${i}`,
        onOutcome: (id, o) => outcomes.set(id, [...outcomes.get(id) ?? [], `${i}:${o.status}`]),
      })
    );
    const deadline = Date.now() + 30_000;
    while (outcomes.size < due.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 1000)); // many more polls by both instances
    stop.abort();
    await Promise.all(workers);
    for (const id of due) {
      const seen = outcomes.get(id) ?? [];
      assert.equal(seen.length, 1, `member ${id}: ${seen.join(", ")}`);
      assert.match(seen[0], /^[01]:ran$/);
      assert.equal(await runsOf(a, id), 1);
    }
  } finally {
    stop.abort();
    a.close();
    b.close();
  }
});
