import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { gzipSync } from "node:zlib";
import { serialize } from "node:v8";
import { createHash } from "node:crypto";
import {
  BackupRefused,
  readBackup,
  restoreBackupFile,
  SNAPSHOT_COPY,
  unfinishedRestore,
  writeBackupFile,
} from "./backup.ts";
import { checkDataFormat, DataFormatError } from "./migrations.ts";
import { keys } from "../foundation/kv_keys.ts";
import { limitKv, openLimitedKv } from "../../tests/_kv_limits.ts";

const NOW = Date.UTC(2026, 10, 23);

async function fill(kv: Deno.Kv): Promise<void> {
  await kv.set(["members", "m1"], { id: "m1", when: new Date(NOW), tags: new Map([["a", 1]]) });
  await kv.set(["record_versions", "m1"], new Deno.KvU64(42n));
  await kv.set(["bytes", new Uint8Array([1, 2, 3]), 7n, true, 2.5], new Uint8Array([9, 8]));
  await kv.set(["sessions", "h1"], { memberId: "m1", createdAt: NOW, expiresAt: NOW + 60_000 });
  await kv.set(["sessions", "old"], { memberId: "m1", createdAt: 0, expiresAt: NOW - 1 });
  await kv.set(["big"], "x".repeat(60_000));
}

/** `n` entry-like keys, 100 per commit. */
async function bulk(kv: Deno.Kv, n: number): Promise<void> {
  for (let i = 0; i < n; i += 100) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(n, i + 100); j++) {
      op.set(["entries", `m${j % 37}`, j], { values: { steps: j, mood: "ok" }, note: `n${j}` });
    }
    await op.commit();
  }
}

async function all(kv: Deno.Kv): Promise<[Deno.KvKey, unknown][]> {
  const out: [Deno.KvKey, unknown][] = [];
  for await (const e of kv.list({ prefix: [] })) out.push([e.key, e.value]);
  return out;
}

const backupOf = async (kv: Deno.Kv, kvPath: string, file: string) =>
  await writeBackupFile(kv, { kvPath, file, serviceVersion: "test" });

Deno.test("restoreBackupFile() keeps every key part and value type, and leaves out expired keys", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using source = await Deno.openKv(":memory:");
    await fill(source);
    for (let i = 0; i < 30; i++) await source.set(["bulk", i], "y".repeat(30_000));
    // ":memory:" has no file to copy: the repeated-walk path.
    const header = await backupOf(source, ":memory:", `${dir}/a.backup`);
    assert.equal(header.entries, 36);
    await using target = await openLimitedKv();
    const { written } = await restoreBackupFile(target, `${dir}/a.backup`, NOW);
    assert.equal(written, 35, "the expired session is left out");
    const expected = (await all(source)).filter(([k]) => k[1] !== "old");
    assert.deepEqual(await all(target), expected);
    const u64 = (await target.get(["record_versions", "m1"])).value;
    assert.ok(u64 instanceof Deno.KvU64 && u64.value === 42n);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("restoreBackupFile() restores typed arrays near the 64 KB value limit, each on its own buffer", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const kvPath = `${dir}/source.sqlite3`;
    await using source = await Deno.openKv(kvPath);
    // Shaped as record snapshot parts (lib/record/record_snapshot.ts): four to a backup block.
    for (let part = 0; part < 4; part++) {
      const nums = Float64Array.from({ length: 7_000 }, (_, i) => i / 4 + part);
      const tags = Uint8Array.from({ length: 7_000 }, (_, i) => i % 5);
      await source.set(["record_snapshots", "m1", part], { part, nums, tags });
    }
    await backupOf(source, kvPath, `${dir}/snapshots.backup`);
    await using target = await openLimitedKv();
    // node:v8's deserializer gives each typed array as a view into the whole block's buffer
    // (256 KB); stored as read, each value serialised that buffer: "Value too large".
    const { written } = await restoreBackupFile(target, `${dir}/snapshots.backup`, NOW);
    assert.equal(written, 4);
    assert.deepEqual(await all(target), await all(source));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("restoreBackupFile() restores 12,000 keys into a KV that allows 10 checks per atomic", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using source = await Deno.openKv(`${dir}/source.sqlite3`);
    await fill(source);
    await bulk(source, 12_000);
    await backupOf(source, `${dir}/source.sqlite3`, `${dir}/b.backup`);
    await using target = await openLimitedKv(`${dir}/target.sqlite3`);
    const { written, resumedAt } = await restoreBackupFile(target, `${dir}/b.backup`, NOW);
    assert.equal(written, 12_005);
    assert.equal(resumedAt, null);
    const expected = (await all(source)).filter(([k]) => k[1] !== "old");
    assert.deepEqual(await all(target), expected, "and no restore marker is left");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A KV whose `failAt`-th commit (counting from 1) throws, as a crash part way would stop it. */
function failingKv(kv: Deno.Kv, failAt: number): Deno.Kv {
  let commits = 0;
  return new Proxy(kv, {
    get(target, prop) {
      if (prop !== "atomic") return Reflect.get(target, prop, target).bind(target);
      return () => {
        const op = target.atomic();
        const commit = op.commit.bind(op);
        op.commit = () =>
          ++commits === failAt ? Promise.reject(new Error("disk I/O error")) : commit();
        return op;
      };
    },
  });
}

Deno.test("backups: an interrupted restore is reported, blocks start-up, refuses another backup and resumes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using source = await Deno.openKv(":memory:");
    await bulk(source, 3_000);
    await backupOf(source, ":memory:", `${dir}/c.backup`);
    await source.set(["other"], 1);
    await backupOf(source, ":memory:", `${dir}/other.backup`);
    await using raw = await Deno.openKv(":memory:");
    const target = limitKv(raw);
    await assert.rejects(
      restoreBackupFile(limitKv(failingKv(raw, 4)), `${dir}/c.backup`, NOW),
      (err: Error) =>
        err instanceof BackupRefused &&
        /^The restore stopped after 1000 of 3000 keys: disk I\/O error\. .*run the same restore again/
          .test(err.message),
    );
    assert.equal((await unfinishedRestore(target))?.done, 1000);
    await assert.rejects(
      checkDataFormat(target),
      (err: Error) =>
        err instanceof DataFormatError && /A restore into this KV did not finish/.test(err.message),
    );
    await assert.rejects(
      restoreBackupFile(target, `${dir}/other.backup`, NOW),
      /unfinished restore of the backup .*c\.backup .*1000 of 3000 keys dealt with\)\. Finish it with/,
    );
    const again = await restoreBackupFile(target, `${dir}/c.backup`, NOW);
    assert.deepEqual([again.resumedAt, again.written], [1000, 2000]);
    assert.deepEqual(await all(target), await all(source).then((a) => a.slice(0, 3000)));
    assert.equal(await unfinishedRestore(target), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeBackupFile() removes a stale VACUUM copy beside the backup and leaves none", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const kvPath = `${dir}/kv.sqlite3`;
    await using kv = await Deno.openKv(kvPath);
    await bulk(kv, 500);
    await Deno.mkdir(`${dir}/backups`);
    const stale = `${dir}/backups/${SNAPSHOT_COPY}`;
    await Deno.writeTextFile(stale, "a copy of the KV left by a killed backup");
    await Deno.writeTextFile(`${stale}-wal`, "its log");
    const header = await backupOf(kv, kvPath, `${dir}/backups/d.backup`);
    assert.equal(header.entries, 500);
    const left = [...Deno.readDirSync(`${dir}/backups`)].map((e) => e.name).sort();
    assert.deepEqual(left, ["d.backup"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("restoreBackupFile() still reads a format-1 backup (one structured-clone body)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const entries = [[["members", "m1"], { id: "m1" }, 0], [["record_versions", "m1"], 7n, 1]];
    const body = serialize(entries);
    const header = {
      format: 1,
      createdAt: new Date(NOW).toISOString(),
      serviceVersion: "0.1.0",
      dataFormat: 3,
      entries: 2,
      bodyBytes: body.length,
      sha256: createHash("sha256").update(body).digest("hex"),
    };
    const head = new TextEncoder().encode(`RTBACKUP 1\n${JSON.stringify(header)}\n`);
    await Deno.writeFile(`${dir}/v1.backup`, gzipSync(Buffer.concat([head, body])));
    await using kv = await openLimitedKv();
    const r = await restoreBackupFile(kv, `${dir}/v1.backup`, NOW);
    assert.deepEqual([r.header.format, r.header.dataFormat, r.written], [1, 3, 2]);
    assert.deepEqual(await all(kv), [
      [["members", "m1"], { id: "m1" }],
      [["record_versions", "m1"], new Deno.KvU64(7n)],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readBackup() refuses a truncated or flipped file before giving any entry", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using kv = await Deno.openKv(":memory:");
    await bulk(kv, 2_000);
    await backupOf(kv, ":memory:", `${dir}/e.backup`);
    const bytes = await Deno.readFile(`${dir}/e.backup`);
    await Deno.writeFile(`${dir}/short.backup`, bytes.subarray(0, bytes.length - 30));
    await assert.rejects(readBackup(`${dir}/short.backup`, () => {}), BackupRefused);
    await using target = await openLimitedKv();
    await assert.rejects(restoreBackupFile(target, `${dir}/short.backup`), BackupRefused);
    assert.deepEqual(await all(target), [], "nothing written");
    await target.set(["x"], 1);
    await assert.rejects(restoreBackupFile(target, `${dir}/e.backup`), /not empty/);
    assert.equal(keys.restoreInProgress()[0], "restore_in_progress");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A separate process committing pairs far apart in key order ("a…" pages are read before "z…"). */
const PAIR_WRITER = `
const kv = await Deno.openKv(Deno.args[0]);
for (let i = 0; ; i++) {
  await kv.atomic().set(["a", i], i).set(["z", i], i).commit();
  if (i === 300) console.log("writing");
}`;

Deno.test("writeBackupFile() of a KV file is one moment while another process commits", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite3`;
  const writer = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--unstable-kv", PAIR_WRITER, path],
    stdout: "piped",
  }).spawn();
  try {
    await writer.stdout.getReader().read(); // "writing": 300 pairs are in
    await using reader = await Deno.openKv(path);
    for (let round = 0; round < 5; round++) {
      await backupOf(reader, path, `${dir}/f.backup`);
      const [a, z]: unknown[][] = [[], []];
      await readBackup(`${dir}/f.backup`, ([k]) => void (k[0] === "a" ? a : z).push(k[1]));
      assert.ok(a.length > 300);
      assert.deepEqual(a, z, "every commit is in the snapshot whole or not at all");
    }
  } finally {
    writer.kill();
    await writer.status;
    await Deno.remove(dir, { recursive: true });
  }
});
