import assert from "node:assert/strict";
import { StrongReader } from "./kv_reads.ts";
import { openLimitedKv } from "../../tests/_kv_limits.ts";

/** The real KV, with its `getMany` calls counted. */
async function countingKv(): Promise<{ kv: Deno.Kv; calls: () => number }> {
  const kv = await openLimitedKv();
  let n = 0;
  const getMany = kv.getMany.bind(kv);
  kv.getMany = ((keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) => {
    n++;
    return getMany(keys, options);
  }) as Deno.Kv["getMany"];
  return { kv, calls: () => n };
}

Deno.test("StrongReader.get() answers many concurrent reads of one key with one getMany", async () => {
  const { kv, calls } = await countingKv();
  try {
    await kv.set(["k"], 1);
    const reader = new StrongReader(kv);
    const values = await Promise.all(Array.from({ length: 50 }, () => reader.get<number>(["k"])));
    assert.ok(values.every((e) => e.value === 1));
    assert.equal(calls(), 1);
  } finally {
    kv.close();
  }
});

Deno.test("StrongReader.get() never answers from a read that began before it was called", async () => {
  const kv = await openLimitedKv();
  try {
    await kv.set(["token"], "valid");
    const reader = new StrongReader(kv);
    for (let i = 0; i < 20; i++) {
      const before = reader.get<string>(["token"]); // a batch in flight
      await kv.delete(["token"]); // the revocation is acknowledged …
      const after = await reader.get<string>(["token"]); // … so this call must see it
      assert.equal(after.value, null);
      await before;
      await kv.set(["token"], "valid");
    }
  } finally {
    kv.close();
  }
});

Deno.test("StrongReader.getMany() reads more than ten distinct keys", async () => {
  const kv = await openLimitedKv();
  try {
    const keys = Array.from({ length: 25 }, (_, i) => ["n", i]);
    for (const [i, key] of keys.entries()) await kv.set(key, i);
    const entries = await new StrongReader(kv).getMany<number[]>(keys);
    assert.deepEqual(entries.map((e) => e.value), keys.map((_, i) => i));
  } finally {
    kv.close();
  }
});
