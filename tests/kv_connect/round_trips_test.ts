/**
 * tests/_kv_round_trips.ts counts what Deno's KV Connect client sends (issue #21, "the count
 * transfers to any remote KV"): the same calls through the counting wrapper on the real remote
 * client make as many `snapshot_read` and `atomic_write` requests as the wrapper counts, and the
 * injected latency shows its depth (calls issued together cost one round trip).
 */

import assert from "node:assert/strict";
import { openKvConnect, startKvConnectServer } from "./server.ts";
import { countRoundTrips } from "../_kv_round_trips.ts";

/** 1,100 keys under ["n"], in 5 commits. */
async function seed(kv: Deno.Kv): Promise<void> {
  for (let i = 0; i < 1100; i += 220) {
    const op = kv.atomic();
    for (let j = i; j < i + 220; j++) op.set(["n", j], j);
    assert.ok((await op.commit()).ok);
  }
}

async function drain(iter: Deno.KvListIterator<unknown>, stopAfter = Infinity): Promise<number> {
  let n = 0;
  for await (const _ of iter) if (++n >= stopAfter) break;
  return n;
}

/** Every kind of call the service makes, with the list shapes that page differently. */
async function workload(kv: Deno.Kv): Promise<void> {
  await kv.get(["n", 1]);
  await kv.getMany([["n", 1], ["n", 2], ["missing"]]);
  assert.equal(await drain(kv.list({ prefix: ["n"] })), 1100); // 100 a page: 11 full + 1 empty
  assert.equal(await drain(kv.list({ prefix: ["n"] }, { batchSize: 1000 })), 1100); // 2
  assert.equal(await drain(kv.list({ prefix: ["n"] }, { limit: 5 })), 5); // 1
  assert.equal(await drain(kv.list({ prefix: ["n"] }, { limit: 150, batchSize: 100 })), 150); // 2
  assert.equal(await drain(kv.list({ prefix: ["n"] }, { limit: 200, batchSize: 100 })), 200); // 2
  assert.equal(await drain(kv.list({ prefix: ["n"] }, { limit: 700 })), 700); // 500 a page: 2
  assert.equal(await drain(kv.list({ prefix: ["n"] }, { reverse: true, batchSize: 550 })), 1100);
  assert.equal(await drain(kv.list({ prefix: ["missing"] })), 0); // 1
  assert.equal(await drain(kv.list({ prefix: ["n"] }), 250), 250); // 3, then stopped
  const iter = kv.list({ start: ["n", 10], end: ["n", 20] });
  await drain(iter);
  await drain(kv.list({ prefix: ["n"] }, { cursor: iter.cursor, batchSize: 40 }));
  await kv.atomic().check({ key: ["n", 1], versionstamp: null }).set(["x"], 1).commit();
  await kv.atomic().set(["x"], 2).sum(["s"], 1n).commit();
  await kv.set(["y"], 1);
  await kv.delete(["y"]);
  await Promise.all([kv.get(["n", 3]), kv.get(["n", 4]), kv.getMany([["n", 5]])]);
}

Deno.test("countRoundTrips() counts exactly the requests Deno's KV Connect client sends", async () => {
  await using server = await startKvConnectServer();
  const remote = await openKvConnect(server);
  try {
    await seed(remote);
    const counting = countRoundTrips(remote);
    await counting.kv.get(["warm"]); // the client's second metadata exchange, before counting
    counting.reset();
    server.resetCounts();
    await workload(counting.kv);
    const sent = server.counts();
    const counted = counting.counts();
    assert.equal(counted.reads, sent.snapshot_read, counted.log.join("\n"));
    assert.equal(counted.commits, sent.atomic_write, counted.log.join("\n"));
    // The last Promise.all of three reads was one round trip deep, not three.
    assert.equal(counted.sequential, counted.reads + counted.commits - 2);
  } finally {
    remote.close();
  }
});

Deno.test("countRoundTrips(): concurrent calls share a depth, calls after them add one each", async () => {
  await using server = await startKvConnectServer({ latencyMs: 10 });
  const remote = await openKvConnect(server);
  try {
    await seed(remote);
    const counting = countRoundTrips(remote);
    await counting.kv.get(["warm"]);
    counting.reset();
    const began = performance.now();
    await Promise.all(Array.from({ length: 8 }, (_, i) => counting.kv.get(["n", i])));
    await drain(counting.kv.list({ prefix: ["n"] }, { batchSize: 1000 }));
    await counting.kv.atomic().set(["z"], 1).commit();
    const elapsed = performance.now() - began;
    const c = counting.counts();
    assert.deepEqual([c.reads, c.commits, c.sequentialReads, c.sequential], [10, 1, 3, 4]);
    // Four round trips of at least 10 ms each (an upper bound would time the shared machine).
    assert.ok(elapsed >= 40, `${elapsed} ms`);
  } finally {
    remote.close();
  }
});
