/**
 * A backup of a remote KV under traffic, through Deno's real KV Connect client (issue #21, "Backups
 * on a remote KV"): while a member saves entries and the limiter flushes its counters into the same
 * KV, `writeBackupFile` on that KV finishes, in few round trips, and its restore into a fresh KV
 * file holds every entry acknowledged before the backup began and serves the member.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openKvConnect, startKvConnectServer } from "./server.ts";
import { systemClock } from "../../lib/foundation/clock.ts";
import { KEY_DURABILITY, keys, volatilePrefixes } from "../../lib/foundation/kv_keys.ts";
import { registerMember } from "../../lib/accounts/accounts.ts";
import { ColumnCreate, createColumn, saveEntry } from "../../lib/record/store.ts";
import { RateLimiter } from "../../lib/policy/rate_limit.ts";
import { restoreBackupFile, writeBackupFile } from "../../lib/operations/backup.ts";
import { createApp } from "../../main.ts";
import { testConfig } from "../../lib/foundation/config.ts";
import { post } from "../http/_members.ts";
import { ADMIN_ARGS } from "../process/_admin.ts";
import { kvConnectEnv } from "./server.ts";

const DAY_MS = 86_400_000;
const SEEDED_DAYS = 1_500;
/** Long enough for a handful of walks of this KV; the code before the fix never finished. */
const BACKUP_DEADLINE_MS = 30_000;

const dateOf = (daysAgo: number) =>
  new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);

/** A member with a column and `SEEDED_DAYS` entries. */
async function seed(kv: Deno.Kv): Promise<string> {
  const ctx = { kv, clock: systemClock, coachDebounceMs: 0 };
  const { memberId } = await registerMember({ ...ctx, passwordIterations: 1000 }, {
    username: "walker",
    password: "a long passphrase",
  });
  await createColumn(
    ctx,
    memberId,
    ColumnCreate.parse({ key: "steps", label: "Steps", type: "integer" }),
  );
  for (let d = 0; d < SEEDED_DAYS; d++) {
    await saveEntry({ ctx, memberId, date: dateOf(SEEDED_DAYS + 10 + d), values: { steps: d } });
  }
  return memberId;
}

/** Traffic on `kv` until `stop` resolves: saves (acknowledged dates recorded) and limiter hits. */
function traffic(kv: Deno.Kv, memberId: string, stop: Promise<void>) {
  const ctx = { kv, clock: systemClock, coachDebounceMs: 60_000 };
  const acked = new Map<string, number>();
  const limiter = new RateLimiter(kv, systemClock, { multiplier: 1_000_000, flushIntervalMs: 10 });
  let running = true;
  stop.then(() => running = false);
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const writer = (async () => {
    for (let d = 0; running && d < 5_000; d++) {
      const date = dateOf(d);
      await saveEntry({ ctx, memberId, date, values: { steps: 100_000 + d } });
      acked.set(date, 100_000 + d);
      await pause(1000);
    }
  })();
  const spender = (async () => {
    for (let i = 0; running; i++) {
      await limiter.hit("mcp", `${memberId}`);
      await limiter.hit("auth", `10.0.${i % 200}.1`);
      await pause(2);
    }
    await limiter.close();
  })();
  const failures: unknown[] = [];
  const done = Promise.all([writer, spender].map((p) => p.catch((err) => failures.push(err))));
  return { acked, failures, done };
}

async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("writeBackupFile() of a KV Connect KV under saves and limiter traffic finishes and restores every acknowledged entry", async () => {
  const dir = await Deno.makeTempDir();
  await using server = await startKvConnectServer();
  const kv = await openKvConnect(server);
  const { promise: stop, resolve: stopTraffic } = Promise.withResolvers<void>();
  const memberId = await seed(kv);
  const load = traffic(kv, memberId, stop);
  try {
    await new Promise((r) => setTimeout(r, 500)); // traffic under way: counters flushed
    const before = new Map(load.acked);
    assert.ok(before.size > 0, `the writer saved before the backup: ${load.failures}`);
    assert.ok((await Array.fromAsync(kv.list({ prefix: keys.rateLimitPrefix() }))).length > 0);
    server.resetCounts();
    const file = join(dir, "remote.backup");
    const started = performance.now();
    const backup = writeBackupFile(kv, { kvPath: server.url, file, serviceVersion: "test" });
    const header = await withDeadline(backup, BACKUP_DEADLINE_MS, "the backup");
    const reads = server.counts().snapshot_read;
    console.log(
      `backup of ${header.entries} keys: ${reads} snapshot reads, ` +
        `${Math.round(performance.now() - started)} ms`,
    );
    stopTraffic();
    await load.done;
    assert.deepEqual(load.failures, []);

    const restored = await Deno.openKv(join(dir, "restored.sqlite3"));
    try {
      await restoreBackupFile(restored, file);
      for (const [date, steps] of before) {
        const day = Math.floor(Date.parse(date) / DAY_MS);
        const entry = await restored.get<{ values: Record<string, number> }>(
          keys.entry(memberId, day),
        );
        assert.equal(entry.value?.values.steps, steps, `entry of ${date}`);
      }
      const seeded = await Array.fromAsync(restored.list({ prefix: keys.entriesOf(memberId) }));
      assert.ok(seeded.length >= SEEDED_DAYS + before.size);
      assert.equal(
        (await Array.fromAsync(restored.list({ prefix: keys.rateLimitPrefix() }))).length,
        0,
      );
      await assertServes(restored);
    } finally {
      restored.close();
    }
  } finally {
    stopTraffic();
    await load.done;
    kv.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** The service on the restored KV: the member signs in, saves an entry and is counted again. */
async function assertServes(kv: Deno.Kv): Promise<void> {
  const app = createApp({ kv, config: testConfig() });
  const target = {
    request: async (path: string, init?: RequestInit) => await app.request(path, init),
  };
  try {
    const signin = await post(target, "/api/auth", {
      action: "login",
      username: "walker",
      password: "a long passphrase",
    });
    assert.equal(signin.status, 200, JSON.stringify(signin.body));
    const saved = await post(target, "/api/proxy", {
      action: "saveEntry",
      date: dateOf(0),
      values: { steps: 1 },
    }, signin.body.sessionToken as string);
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
  } finally {
    await app.close();
  }
}

Deno.test("writeBackupFile() of an idle KV Connect KV reads 1,000 keys per round trip and never reads a counter", async () => {
  const dir = await Deno.makeTempDir();
  await using server = await startKvConnectServer();
  const kv = await openKvConnect(server);
  try {
    const memberId = await seed(kv);
    const limiter = new RateLimiter(kv, systemClock, { multiplier: 1_000 });
    for (let i = 0; i < 1_500; i++) await limiter.hit("auth", `10.1.${i >> 8}.${i & 255}`);
    await limiter.close();
    assert.ok((await Array.fromAsync(kv.list({ prefix: keys.rateLimitPrefix() }))).length >= 1_500);
    server.resetCounts();
    const header = await writeBackupFile(kv, {
      kvPath: server.url,
      file: join(dir, "idle.backup"),
      serviceVersion: "test",
    });
    const reads = server.counts().snapshot_read;
    console.log(`idle backup of ${header.entries} keys: ${reads} snapshot reads (two walks)`);
    assert.ok(header.entries >= SEEDED_DAYS, `${header.entries} keys`);
    // Two walks, each one read per range between volatile prefixes plus one per 1,000 keys.
    const perWalk = volatilePrefixes().length + 1 + Math.ceil(header.entries / 1_000);
    assert.ok(reads <= 2 * perWalk, `${reads} snapshot reads for ${header.entries} keys`);
    assert.ok(memberId);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("KEY_DURABILITY: declares every prefix the key table builds, and nothing else", () => {
  const retired = new Set(["retiredPrefixes", "retiredCoachDaily", "everything"]);
  const built = new Set<string>();
  for (const [name, make] of Object.entries(keys)) {
    if (retired.has(name)) continue;
    const key = (make as (...args: unknown[]) => readonly unknown[])("a", "b", 1);
    for (const k of Array.isArray(key[0]) ? key as unknown[][] : [key]) built.add(String(k[0]));
  }
  assert.deepEqual([...built].sort(), Object.keys(KEY_DURABILITY).sort());
});

Deno.test("backups: deno task admin backup with KV_URL backs up a KV Connect KV under traffic and says it holds durable keys only", async () => {
  const dir = await Deno.makeTempDir();
  await using server = await startKvConnectServer();
  const kv = await openKvConnect(server);
  const { promise: stop, resolve: stopTraffic } = Promise.withResolvers<void>();
  const memberId = await seed(kv);
  const load = traffic(kv, memberId, stop);
  try {
    const file = join(dir, "admin.backup");
    const child = new Deno.Command(Deno.execPath(), {
      args: [...ADMIN_ARGS, "backup", file],
      cwd: new URL("../../", import.meta.url).pathname,
      env: { ...kvConnectEnv(server), DENO_NO_UPDATE_CHECK: "1" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill(), BACKUP_DEADLINE_MS);
    const out = await child.output().finally(() => clearTimeout(timer));
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    assert.equal(out.code, 0, text(out.stdout) + text(out.stderr));
    assert.match(
      text(out.stdout),
      /keys, data format .*\(durable keys only: see \/docs\/backups\)/,
    );
    stopTraffic();
    await load.done;
    assert.deepEqual(load.failures, []);
    const restored = await Deno.openKv(join(dir, "restored.sqlite3"));
    try {
      await restoreBackupFile(restored, file);
      assert.ok((await restored.get(keys.member(memberId))).value, "the member restored");
    } finally {
      restored.close();
    }
  } finally {
    stopTraffic();
    await load.done;
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
