/**
 * The rate limiter never wedges (issue #19): 1,000 distinct members counted in one flush, across
 * two real service processes on one KV file. The KV's write lock is held (as a few seconds of
 * contention between processes hold it) while every member sends one `tools/call`, so each
 * process's counts pile up unflushed; once the lock is released they must all reach KV. Before,
 * a flush put one account check per member into one commit: past 100 members it threw "Too many
 * checks", put the counts back, and every later flush failed again, forever.
 *
 * The same on a remote KV (issue #21): the processes reach the KV Connect test server through
 * Deno's real client at 10 ms per round trip, with `RATE_LIMIT_FLUSH_MS` at its remote default
 * (50 ms), so each flush carries the members of several bursts; the server refuses, as `denokv`
 * does, an atomic of more than 10 checks (HTTP 400), so not one flush may fail there. (A remote
 * KV has no write lock to hold from outside; its outage is tests/http/kv_deadline_test.ts.)
 */

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createApiToken } from "../../lib/accounts/api_tokens.ts";
import type { Member } from "../../lib/accounts/accounts.ts";
import { systemClock } from "../../lib/foundation/clock.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { RATE_LIMIT_POLICIES } from "../../lib/policy/rate_limit.ts";
import { type KvMode, kvModeName, kvModes, startProcesses } from "../_processes.ts";
import { toolCall } from "../http/_members.ts";

const MEMBERS = 1000;
const WINDOW_MS = RATE_LIMIT_POLICIES.mcp.w * 1000;

/** Writes `n` members, each with one read-only API token, through the service's own functions. */
async function seedMembers(kv: Deno.Kv, n: number): Promise<{ id: string; token: string }[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 100) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(n, i + 100); j++) {
      const username = `flush-${String(j).padStart(4, "0")}`;
      const member: Member = {
        id: crypto.randomUUID(),
        username,
        passwordHash: "-", // never signs in: the token is its credential
        createdAt: new Date().toISOString(),
        displayName: username,
        timezone: "UTC",
        units: "metric",
        dayStartOffsetHours: 0,
      };
      op.set(keys.member(member.id), member).set(keys.username(username), member.id);
      ids.push(member.id);
    }
    await op.commit();
  }
  const out = [];
  // 50 at a time: on a remote KV each is a few round trips
  for (let i = 0; i < ids.length; i += 50) {
    out.push(
      ...await Promise.all(
        ids.slice(i, i + 50).map(async (memberId) => {
          const created = await createApiToken({
            kv,
            clock: systemClock,
            memberId,
            name: "flush",
            scopes: ["read"],
          });
          return { id: memberId, token: created.token };
        }),
      ),
    );
  }
  return out;
}

/** One `tools/call` as the token's member; the status only. */
async function callAs(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/api/mcp`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${token}`,
    },
    body: JSON.stringify(toolCall("list_columns")),
  });
  await res.body?.cancel();
  return res.status;
}

/** The `mcp` counts of the current window in KV, by member. */
async function mcpCounts(kv: Deno.Kv): Promise<Map<string, number>> {
  const index = Math.floor(Date.now() / WINDOW_MS);
  const out = new Map<string, number>();
  for await (const e of kv.list<Deno.KvU64>({ prefix: keys.rateLimitPrefix() })) {
    const [, policy, subject, windowIndex] = e.key as [string, string, string, number];
    if (policy === "mcp" && windowIndex === index) out.set(subject, Number(e.value.value));
  }
  return out;
}

/** Waits for the next window if fewer than `seconds` of this one remain. */
async function roomInWindow(seconds: number): Promise<number> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 50));
  return Math.floor(Date.now() / WINDOW_MS);
}

const MODES = kvModes(["file", { latencyMs: 10 }]);

/** Every member's call, 100 at a time over both processes; the statuses. */
async function callEveryMember(urls: string[], members: { token: string }[]): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < members.length; i += 100) {
    const burst = members.slice(i, i + 100).map((m, j) => callAs(urls[(i + j) % 2], m.token));
    statuses.push(...await Promise.all(burst));
  }
  return statuses;
}

/** On a KV file: the calls while its write lock is held, so nothing can commit until released. */
async function callEveryMemberLocked(
  kvPath: string,
  reader: Deno.Kv,
  urls: string[],
  members: { token: string }[],
): Promise<number[]> {
  const lock = new DatabaseSync(kvPath);
  lock.exec("BEGIN IMMEDIATE"); // what a writing process holds; readers go on (WAL)
  const started = performance.now();
  try {
    const statuses = await callEveryMember(urls, members);
    // Nothing could commit: each process holds about 500 members' counts, unflushed.
    assert.equal((await mcpCounts(reader)).size, 0);
    return statuses;
  } finally {
    lock.exec("ROLLBACK");
    lock.close();
    console.log(`lock held ${(performance.now() - started).toFixed(0)} ms`);
  }
}

/** Log lines of a process that tell of a lost or refused count (`remote`: any failed flush). */
function badLines(output: string, remote: boolean): string[] {
  // On a KV file, while the lock was held a flush may have spent its retries (KV busy: logged
  // once, its counts kept); none may have been refused, and none may have given counts up.
  return output.split("\n").filter((line) =>
    /Too many checks|internal error/i.test(line) ||
    (line.includes("rate-limit flushes recovered") && !line.includes('"droppedCounts":0')) ||
    (remote && line.includes("rate-limit flush failed"))
  );
}

for (const mode of MODES) {
  Deno.test(`rate limiter: 1,000 members counted in one flush across two processes on ${kvModeName(mode)}`, async (t) => {
    await flushScenario(t, mode);
  });
}

async function flushScenario(t: Deno.TestContext, mode: KvMode): Promise<void> {
  const remote = mode !== "file";
  await using procs = await startProcesses({
    count: 2,
    kv: mode,
    env: { RATE_LIMIT_MULTIPLIER: "1" },
  });
  const { urls, kvPath } = procs;
  // Opened before the lock is taken: opening a KV file writes to it, reading it does not.
  await using reader = await procs.openKv();
  const members = await seedMembers(reader, MEMBERS);
  try {
    const index = await roomInWindow(45);

    await t.step(
      "every member's call is answered (on a KV file: while its write lock is held)",
      async () => {
        const statuses = remote
          ? await callEveryMember(urls, members)
          : await callEveryMemberLocked(kvPath, reader, urls, members);
        assert.deepEqual(statuses.filter((s) => s !== 200), []);
      },
    );

    await t.step("every count reaches KV exactly once", async () => {
      const started = performance.now();
      let counts = await mcpCounts(reader);
      while (counts.size < MEMBERS && performance.now() - started < 20_000) {
        await new Promise((r) => setTimeout(r, 100));
        counts = await mcpCounts(reader);
      }
      console.log(
        `all counts in KV ${(performance.now() - started).toFixed(0)} ms after the calls`,
      );
      assert.equal(counts.size, MEMBERS, "a counter per member");
      assert.deepEqual([...counts.values()].filter((n) => n !== 1), [], "each counted once");
    });

    await t.step("the quota stays exact across both processes afterwards", async () => {
      // The member already spent 1; paced requests over both processes spend the rest exactly.
      const { q } = RATE_LIMIT_POLICIES.mcp;
      for (const member of members.slice(0, 2)) {
        let allowed = 1;
        for (let i = 0; i < 200; i += 3) {
          const burst = [0, 1, 2].map((j) => callAs(urls[(i + j) % 2], member.token));
          const statuses = await Promise.all(burst);
          assert.deepEqual(statuses.filter((s) => s !== 200 && s !== 429), []);
          allowed += statuses.filter((s) => s === 200).length;
          await new Promise((r) => setTimeout(r, 30));
        }
        assert.equal(allowed, q, `member ${member.id}`);
      }
    });

    await t.step("one window; no count was given up, no flush refused", () => {
      assert.equal(Math.floor(Date.now() / WINDOW_MS), index, "the scenario crossed a window");
      for (let i = 0; i < urls.length; i++) {
        assert.deepEqual(badLines(procs.output(i), remote), [], `process ${i}`);
      }
    });
  } finally {
    await procs.stop();
  }
}
