/**
 * The KV Connect test server, through Deno's real remote client where the client reaches it, and
 * through the raw protocol for the limits the client already enforces itself (keys, values, sizes).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { kvConnectEnv, openKvConnect, startKvConnectServer, TEST_TOKEN } from "./server.ts";
import type { KvConnectServer } from "./server.ts";
import { TEXT } from "./limits.ts";
import {
  type AtomicWrite,
  encodeAtomicWrite,
  encodeSnapshotRead,
  encodeWatch,
  M_SET,
  type Mutation,
  type ReadRange,
  VE_BYTES,
} from "./protocol.ts";

function openRemote(server: KvConnectServer, token = TEST_TOKEN): Promise<Deno.Kv> {
  return openKvConnect({ url: server.url, token });
}

const V2 = {
  "x-denokv-version": "3",
  "x-denokv-database-id": "00000000-0000-0000-0000-000000000000",
};

/** One raw data-path request; answers the status and body text. */
async function call(
  server: KvConnectServer,
  endpoint: string,
  body: Uint8Array,
  headers: Record<string, string> = { ...V2, authorization: `Bearer ${TEST_TOKEN}` },
): Promise<[number, string]> {
  const res = await fetch(`${server.url}/v2/${endpoint}`, {
    method: "POST",
    headers,
    body: body as Uint8Array<ArrayBuffer>,
  });
  return [
    res.status,
    endpoint === "watch" && res.ok ? (await res.body?.cancel(), "") : await res.text(),
  ];
}

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);
const set = (key: Uint8Array, size = 1): Mutation => ({
  key,
  value: { data: bytes(size), encoding: VE_BYTES },
  type: M_SET,
  expireAtMs: 0n,
});
const write = (w: Partial<AtomicWrite>) =>
  encodeAtomicWrite({ checks: [], mutations: [], enqueues: [], ...w });
const range = (limit: number, start = bytes(1, 1), end = bytes(1, 2)): ReadRange => ({
  start,
  end,
  limit,
  reverse: false,
});
const checks = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: bytes(3, i + 1), versionstamp: new Uint8Array() }));

Deno.test("kv-connect: the server refuses what denokv refuses, with 400 and denokv's text", async (t) => {
  await using server = await startKvConnectServer();
  const refusals: [string, string, Uint8Array, string][] = [
    ["11 checks", "atomic_write", write({ checks: checks(11) }), TEXT.tooManyChecks],
    [
      "1,001 mutations",
      "atomic_write",
      write({ mutations: Array.from({ length: 1001 }, (_, i) => set(bytes(2, i % 250 + 1))) }),
      TEXT.tooManyMutations,
    ],
    ["a 2,049-byte key", "atomic_write", write({ mutations: [set(bytes(2049))] }), TEXT.keyTooLong],
    [
      "a 65,537-byte value",
      "atomic_write",
      write({ mutations: [set(bytes(1), 65537)] }),
      TEXT.valueTooLong,
    ],
    [
      "13 values of 65,536 bytes",
      "atomic_write",
      write({ mutations: Array.from({ length: 13 }, (_, i) => set(bytes(1, i + 1), 65536)) }),
      TEXT.atomicWriteTooLarge,
    ],
    [
      "a 5-byte versionstamp",
      "atomic_write",
      write({ checks: [{ key: bytes(1), versionstamp: bytes(5) }] }),
      TEXT.invalidVersionstamp,
    ],
    [
      "an enqueue",
      "atomic_write",
      write({ enqueues: [{ payload: bytes(4), keysIfUndelivered: [], backoffSchedule: [] }] }),
      TEXT.enqueue,
    ],
    [
      "a body that is not protobuf",
      "snapshot_read",
      Uint8Array.of(0xff, 0xff, 0xff),
      "Request protobuf is invalid: premature EOF.",
    ],
    [
      "11 read ranges",
      "snapshot_read",
      encodeSnapshotRead(Array.from({ length: 11 }, () => range(1))),
      TEXT.tooManyReadRanges,
    ],
    [
      "1,001 entries across ranges",
      "snapshot_read",
      encodeSnapshotRead([range(500), range(501)]),
      TEXT.readRangeTooLarge,
    ],
    ["a limit of 0", "snapshot_read", encodeSnapshotRead([range(0)]), TEXT.invalidReadRangeLimit],
    [
      "a 2,050-byte range start",
      "snapshot_read",
      encodeSnapshotRead([range(1, bytes(2050))]),
      TEXT.keyTooLong,
    ],
    [
      "11 watched keys",
      "watch",
      encodeWatch(Array.from({ length: 11 }, (_, i) => bytes(2, i + 1))),
      TEXT.tooManyWatchedKeys,
    ],
  ];
  for (const [what, endpoint, body, message] of refusals) {
    await t.step(`${what} → 400`, async () => {
      assert.deepEqual(await call(server, endpoint, body), [400, message]);
    });
  }
  await t.step(
    "the limits themselves pass: 10 checks, 1,000 mutations, 1,000 entries, 10 watched keys",
    async () => {
      assert.equal((await call(server, "atomic_write", write({ checks: checks(10) })))[0], 200);
      const thousand = Array.from(
        { length: 1000 },
        (_, i) => set(Uint8Array.of(2, i >> 8, i & 255, 0)),
      );
      assert.equal((await call(server, "atomic_write", write({ mutations: thousand })))[0], 200);
      assert.equal(
        (await call(server, "snapshot_read", encodeSnapshotRead([range(500), range(500)])))[0],
        200,
      );
      assert.equal(
        (await call(server, "watch", encodeWatch(checks(10).map((c) => c.key))))[0],
        200,
      );
    },
  );
  await t.step("a wrong token → 401, a missing protocol version → 400", async () => {
    const body = encodeSnapshotRead([range(1)]);
    assert.deepEqual(
      await call(server, "snapshot_read", body, { ...V2, authorization: "Bearer nope" }),
      [401, "Invalid access token."],
    );
    assert.deepEqual(
      await call(server, "snapshot_read", body, { authorization: `Bearer ${TEST_TOKEN}` }),
      [400, "Expected protocol version 2."],
    );
  });
  await t.step("a metadata exchange without a body → 400", async () => {
    const res = await fetch(server.url, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    assert.deepEqual([res.status, await res.text()], [
      400,
      "The server requires at least protocol version 2. Use Deno 1.38.0 or newer.",
    ]);
  });
});

Deno.test("kv-connect: Deno's client surfaces denokv's 10-check limit as an error carrying the server's text", async () => {
  await using server = await startKvConnectServer();
  using kv = await openRemote(server);
  const atomic = (n: number) => {
    const op = kv.atomic();
    for (let i = 0; i < n; i++) op.check({ key: ["k", i], versionstamp: null });
    return op.set(["done", n], true).commit();
  };
  assert.equal((await atomic(10)).ok, true);
  await assert.rejects(
    atomic(11),
    new RegExp(
      `KV Connect failed to call '${server.url}/v2/atomic_write' \\(status=400 Bad Request\\): ${TEXT.tooManyChecks}`,
    ),
  );
  assert.equal((await kv.get(["done", 11])).versionstamp, null);
});

Deno.test("kv-connect: Deno's client refuses an enqueue before sending anything", async () => {
  await using server = await startKvConnectServer();
  using kv = await openRemote(server);
  const before = server.counts().atomic_write;
  await assert.rejects(kv.atomic().set(["x"], 1).enqueue("hello").commit(), {
    message: TEXT.enqueue,
  });
  await assert.rejects(kv.enqueue("hello"), { message: TEXT.enqueue });
  assert.equal(server.counts().atomic_write, before);
  assert.equal((await kv.get(["x"])).versionstamp, null);
});

Deno.test("kv-connect: a wrong access token fails Deno.openKv with the server's 401 text", async () => {
  await using server = await startKvConnectServer();
  await assert.rejects(
    openRemote(server, "not-the-token-at-all"),
    /the metadata endpoint at 'http:\/\/127\.0\.0\.1:\d+\/' responded with status 401 Unauthorized: Invalid access token\./,
  );
});

async function timed<T>(f: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

Deno.test("kv-connect: injected latency delays every round trip, and counts show one round trip per getMany", async () => {
  await using server = await startKvConnectServer();
  using kv = await openRemote(server);
  await kv.set(["a"], 1);
  const fast = await timed(() => kv.get(["a"]));
  server.setLatency(300);
  server.resetCounts();
  const slow = await timed(() => kv.get(["a"]));
  const many = await timed(() => kv.getMany([["a"], ["b"], ["c"]]));
  const commit = await timed(() => kv.set(["b"], 2));
  assert.ok(fast < 300, `no latency: ${fast} ms`);
  for (const ms of [slow, many, commit]) assert.ok(ms >= 300, `with 300 ms: ${ms} ms`);
  assert.deepEqual(server.counts(), { metadata: 0, snapshot_read: 2, atomic_write: 1, watch: 0 });
});

Deno.test("kv-connect: during an outage Deno's client retries every ~250 ms without end, then completes once, when the outage ends", async () => {
  await using server = await startKvConnectServer();
  using kv = await openRemote(server);
  await kv.get(["warm"]); // the data path's own metadata exchange happens on first use
  server.setOutage(true);
  server.resetCounts();
  let settled = false;
  const read = kv.get(["n"]).finally(() => settled = true);
  const sum = kv.atomic().sum(["n"], 1n).commit().finally(() => settled = true);
  await new Promise((r) => setTimeout(r, 2000));
  // Observed with Deno 2.9.6: neither call rejects; each 503 is retried (a log line on stderr each).
  assert.equal(settled, false);
  const { snapshot_read, atomic_write } = server.counts();
  assert.ok(
    snapshot_read >= 4 && atomic_write >= 4 && server.counts().metadata === 0,
    `attempts in 2 s: ${Deno.inspect(server.counts())}`,
  );
  server.setOutage(false);
  assert.equal((await sum).ok, true);
  await read;
  assert.equal((await kv.get<Deno.KvU64>(["n"])).value?.value, 1n, "the sum was applied once");
});

Deno.test("kv-connect: watch delivers a change committed through another client", async () => {
  await using server = await startKvConnectServer();
  using watcher = await openRemote(server);
  using writer = await openRemote(server);
  const stream = watcher.watch([["w"], ["other"]]).getReader();
  const first = await stream.read();
  assert.deepEqual(first.value?.map((e) => e.value), [null, null]);
  await writer.set(["w"], "changed");
  const next = await stream.read();
  assert.deepEqual(next.value?.map((e) => e.value), ["changed", null]);
  await stream.cancel();
  assert.equal(server.counts().watch, 1);
});

Deno.test("kv-connect: an expireIn travels to the store as an absolute expiry time", async () => {
  const path = await Deno.makeTempFile({ suffix: ".sqlite3" });
  try {
    await using server = await startKvConnectServer({ path });
    using kv = await openRemote(server);
    const before = Date.now();
    await kv.set(["e"], 1, { expireIn: 60_000 });
    const after = Date.now();
    await kv.set(["forever"], 1);
    const db = new DatabaseSync(path, { readOnly: true });
    const rows = db.prepare("select expiration_ms from kv order by expiration_ms").all();
    db.close();
    const [never, expires] = rows.map((r) => Number(r.expiration_ms));
    assert.equal(never, -1);
    assert.ok(
      expires >= before + 60_000 && expires <= after + 60_000,
      `${expires} in [${before}, ${after}] + 60 s`,
    );
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("kv-connect: the CLI serves a KV file as its own process", async () => {
  const dir = await Deno.makeTempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--unstable-kv",
      new URL("./server.ts", import.meta.url).pathname,
      "--port",
      "0",
      "--path",
      `${dir}/kv.sqlite3`,
      "--token",
      "cli-token-123456",
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the server process ended before serving: ${out}`);
      out += value;
    }
    const url = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)![1];
    using kv = await openKvConnect({ url, token: "cli-token-123456" });
    await kv.set(["from", "cli"], { ok: true });
    assert.deepEqual((await kv.get(["from", "cli"])).value, { ok: true });
    await reader.cancel();
  } finally {
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kv-connect: a child process given kvConnectEnv() writes through its own remote client", async () => {
  await using server = await startKvConnectServer();
  const code =
    `const kv = await Deno.openKv(Deno.env.get("KV_URL")); await kv.set(["child"], Deno.pid); kv.close();`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--unstable-kv", code],
    env: kvConnectEnv(server),
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  using kv = await openRemote(server);
  assert.equal(typeof (await kv.get(["child"])).value, "number");
  assert.equal(server.counts().atomic_write, 1);
});
