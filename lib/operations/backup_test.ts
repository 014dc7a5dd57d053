import assert from "node:assert/strict";
import {
  BackupRefused,
  decodeBackup,
  encodeBackup,
  restoreEntries,
  snapshotEntries,
} from "./backup.ts";

const NOW = Date.UTC(2026, 10, 23);

async function fill(kv: Deno.Kv): Promise<void> {
  await kv.set(["members", "m1"], { id: "m1", when: new Date(NOW), tags: new Map([["a", 1]]) });
  await kv.set(["record_versions", "m1"], new Deno.KvU64(42n));
  await kv.set(["bytes", new Uint8Array([1, 2, 3]), 7n, true, 2.5], new Uint8Array([9, 8]));
  await kv.set(["sessions", "h1"], { memberId: "m1", createdAt: NOW, expiresAt: NOW + 60_000 });
  await kv.set(["sessions", "old"], { memberId: "m1", createdAt: 0, expiresAt: NOW - 1 });
  await kv.set(["big"], "x".repeat(60_000));
}

async function all(kv: Deno.Kv): Promise<[Deno.KvKey, unknown][]> {
  const out: [Deno.KvKey, unknown][] = [];
  for await (const e of kv.list({ prefix: [] })) out.push([e.key, e.value]);
  return out;
}

Deno.test("encodeBackup() and restoreEntries() keep every key part and value type", async () => {
  await using source = await Deno.openKv(":memory:");
  await fill(source);
  for (let i = 0; i < 30; i++) await source.set(["bulk", i], "y".repeat(30_000));
  // ":memory:" has no file to copy: the repeated-walk path.
  const entries = await snapshotEntries(source, ":memory:");
  const file = await encodeBackup(entries, {
    serviceVersion: "test",
    dataFormat: 3,
    now: new Date(NOW),
  });
  const { header, entries: decoded } = await decodeBackup(file);
  assert.equal(header.entries, entries.length);
  await using target = await Deno.openKv(":memory:");
  const written = await restoreEntries(target, decoded, NOW);
  assert.equal(written, entries.length - 1, "the expired session is left out");
  const expected = (await all(source)).filter(([k]) => k[1] !== "old");
  assert.deepEqual(await all(target), expected);
  const u64 = (await target.get(["record_versions", "m1"])).value;
  assert.ok(u64 instanceof Deno.KvU64 && u64.value === 42n);
});

Deno.test("decodeBackup() refuses a truncated file and restoreEntries() a non-empty KV", async () => {
  await using kv = await Deno.openKv(":memory:");
  await fill(kv);
  const file = await encodeBackup(await snapshotEntries(kv, ":memory:"), {
    serviceVersion: "test",
    dataFormat: 3,
    now: new Date(NOW),
  });
  await assert.rejects(() => decodeBackup(file.subarray(0, file.length - 30)), BackupRefused);
  await assert.rejects(
    async () => restoreEntries(kv, (await decodeBackup(file)).entries, NOW),
    /not empty/,
  );
});

/** A separate process committing pairs far apart in key order ("a…" pages are read before "z…"). */
const PAIR_WRITER = `
const kv = await Deno.openKv(Deno.args[0]);
for (let i = 0; ; i++) {
  await kv.atomic().set(["a", i], i).set(["z", i], i).commit();
  if (i === 300) console.log("writing");
}`;

Deno.test("snapshotEntries() of a KV file is one moment while another process commits", async () => {
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
      const snapshot = await snapshotEntries(reader, path);
      const a = snapshot.filter(([k]) => k[0] === "a").map(([k]) => k[1]);
      const z = snapshot.filter(([k]) => k[0] === "z").map(([k]) => k[1]);
      assert.ok(a.length > 300);
      assert.deepEqual(a, z, "every commit is in the snapshot whole or not at all");
    }
  } finally {
    writer.kill();
    await writer.status;
    await Deno.remove(dir, { recursive: true });
  }
});
