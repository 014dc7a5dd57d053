import assert from "node:assert/strict";
import { keySize, KV_LIMITS, limitKv, openLimitedKv, valueSize } from "./_kv_limits.ts";

const key = (i: number) => ["k", i];

/** Commits `op` on the limited KV; asserts the refusal and that nothing was written. */
async function refused(kv: Deno.Kv, run: () => Promise<unknown>, message: RegExp) {
  await assert.rejects(run, (err: unknown) => {
    assert.ok(err instanceof TypeError, String(err));
    assert.match(err.message, message);
    return true;
  });
  assert.equal((await Array.fromAsync(kv.list({ prefix: [] }))).length, 0, "nothing written");
}

Deno.test("limitKv() refuses what the strictest supported KV refuses", async (t) => {
  await using kv = await openLimitedKv();
  await t.step("11 checks in one atomic (denokv allows 10)", async () => {
    const op = kv.atomic();
    for (let i = 0; i < 11; i++) op.check({ key: key(i), versionstamp: null });
    await refused(kv, () => op.set(["x"], 1).commit(), /^Too many checks \(max 10\)$/);
  });
  await t.step("1,001 mutations in one atomic, enqueues included", async () => {
    const op = kv.atomic();
    for (let i = 0; i < 1000; i++) op.set(key(i), i);
    op.enqueue("job");
    await refused(kv, () => op.commit(), /^Too many mutations \(max 1000\)$/);
  });
  await t.step("more than 819,200 bytes in one atomic", async () => {
    const op = kv.atomic();
    for (let i = 0; i < 13; i++) op.set(key(i), "x".repeat(64_000));
    await refused(kv, () => op.commit(), /^Total mutation size too large \(max 819200 bytes\)$/);
  });
  await t.step("11 keys in one getMany", async () => {
    const keys = Array.from({ length: 11 }, (_, i) => key(i));
    await refused(kv, () => kv.getMany(keys), /^Too many ranges \(max 10\)$/);
  });
  await t.step("a key of more than 2 KiB, written or read", async () => {
    const long = ["k", "x".repeat(2046)];
    assert.equal(keySize(long), 2051);
    await refused(kv, () => kv.set(long, 1), /^Key too large for write \(max 2048 bytes\)$/);
    await refused(kv, () => kv.atomic().set(long, 1).commit(), /^Key too large for write/);
    await refused(kv, () => kv.get(long), /^Key too large for read \(max 2049 bytes\)$/);
  });
  await t.step("keySize() measures keys as Deno does: 2,048 bytes pass, 2,049 do not", async () => {
    await using raw = await Deno.openKv(":memory:");
    const at = ["k", "x".repeat(2043)];
    const over = ["k", "x".repeat(2044)];
    assert.equal(keySize(at), 2048);
    await raw.set(at, 1);
    await assert.rejects(() => raw.set(over, 1), /Key too large for write \(max 2048 bytes\)/);
    assert.equal(keySize(["a", 1, 2n, true, new Uint8Array([0, 1])]), 3 + 9 + 2 + 1 + 5);
  });
  await t.step(
    "valueSize() weighs a string with one ’ at two bytes a character, as Deno does",
    async () => {
      await using raw = await Deno.openKv(":memory:");
      const latin = "x".repeat(40_000);
      const twoByte = "’" + "x".repeat(39_999);
      assert.ok(valueSize(latin) < 40_100);
      assert.ok(valueSize(twoByte) > 80_000);
      await raw.set(["v"], latin);
      await assert.rejects(() => raw.set(["v"], twoByte), /Value too large \(max 65536 bytes\)/);
    },
  );
  await t.step("a value of more than 64 KiB, set or enqueued", async () => {
    const big = "x".repeat(65_536);
    assert.ok(valueSize(big) > KV_LIMITS.valueBytes);
    await refused(kv, () => kv.set(["v"], big), /^Value too large \(max 65536 bytes\)$/);
    await refused(kv, () => kv.atomic().set(["v"], big).commit(), /^Value too large/);
    await refused(kv, () => kv.enqueue(big), /^enqueue payload too large \(max 65536 bytes\)$/);
  });
  await t.step("11 watched keys", () => {
    const keys = Array.from({ length: 11 }, (_, i) => key(i));
    assert.throws(() => kv.watch(keys), /Too many keys \(max 10\)$/);
  });
  await t.step("exactly at each limit it commits", async () => {
    const op = kv.atomic();
    for (let i = 0; i < 10; i++) op.check({ key: key(i), versionstamp: null });
    for (let i = 0; i < 1000; i++) op.set(key(i), i);
    assert.equal((await op.commit()).ok, true);
    assert.equal((await kv.getMany(Array.from({ length: 10 }, (_, i) => key(i)))).length, 10);
    await kv.set(["v"], new Uint8Array(KV_LIMITS.valueBytes));
  });
});

/** The same operations, in order, on one KV; returns what a caller sees (versionstamps aside). */
async function script(kv: Deno.Kv): Promise<unknown[]> {
  const out: unknown[] = [];
  const strip = (e: Deno.KvEntryMaybe<unknown>) => [e.key, e.value, e.versionstamp !== null];
  out.push((await kv.set(["a", 1], { n: 1 })).ok);
  await kv.set(["a", 2], "two", { expireIn: 60_000 });
  await kv.set(["a", 3], new Uint8Array([1, 2]));
  const first = await kv.get(["a", 1]);
  out.push(strip(first));
  out.push((await kv.atomic().check(first).set(["a", 1], { n: 2 }).commit()).ok);
  out.push((await kv.atomic().check(first).set(["a", 1], { n: 3 }).commit()).ok);
  await kv.atomic().sum(["u"], 5n).sum(["u"], 2n).min(["lo"], 3n).max(["hi"], 9n).commit();
  await kv.atomic().mutate({ type: "set", key: ["m"], value: 1 }, { type: "delete", key: ["a", 3] })
    .commit();
  await kv.delete(["a", 2]);
  out.push((await kv.getMany([["a", 1], ["a", 2], ["u"], ["lo"], ["hi"], ["m"]])).map(strip));
  out.push((await Array.fromAsync(kv.list({ prefix: [] }))).map(strip));
  out.push((await Array.fromAsync(kv.list({ start: ["a"], end: ["z"] }, { reverse: true })))
    .map(strip));
  const delivered = Promise.withResolvers<unknown>();
  kv.listenQueue((m) => delivered.resolve(m));
  await kv.atomic().enqueue({ job: 1 }).commit();
  out.push(await delivered.promise);
  const stream = kv.watch([["a", 1]]);
  const reader = stream.getReader();
  out.push((await reader.read()).value!.map(strip));
  await reader.cancel();
  return out;
}

Deno.test("limitKv() gives the real KV's results for a normal sequence of operations", async () => {
  const raw = await Deno.openKv(":memory:");
  const wrapped = await openLimitedKv();
  assert.ok(wrapped instanceof Deno.Kv);
  assert.equal(limitKv(wrapped), wrapped, "wrapping twice is one wrapper");
  assert.deepEqual(await script(wrapped), await script(raw));
  raw.close();
  {
    using _disposed = wrapped;
  }
  await assert.rejects(() => wrapped.get(["a", 1]));
});
