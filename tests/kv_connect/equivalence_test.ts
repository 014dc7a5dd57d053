/**
 * Deno's real KV Connect client against the test server gives the same answers as a local KV, on a
 * few hundred seeded random operations (issue #21: "Prove it first with Deno's real client").
 * Versionstamps differ between two stores, so only their format and order are compared.
 */
import assert from "node:assert/strict";
import { openKvConnect, startKvConnectServer } from "./server.ts";

/** mulberry32: a small seeded generator, so a failure can be replayed from its seed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Pair = { remote: Deno.Kv; local: Deno.Kv };
const VERSIONSTAMP = /^[0-9a-f]{20}$/;

/** Values compared by content: `Deno.KvU64` has no enumerable fields of its own. */
function plain(v: unknown): unknown {
  return v instanceof Deno.KvU64 ? { u64: v.value } : v;
}

function entries(list: Deno.KvEntryMaybe<unknown>[]) {
  return list.map((e) => ({ key: e.key, value: plain(e.value), exists: e.versionstamp !== null }));
}

class Ops {
  /** Entries found by reads, so a run that only ever compared empty answers fails. */
  found = 0;
  constructor(readonly kv: Pair, readonly r: () => number, readonly log: string[]) {}
  int = (n: number) => Math.floor(this.r() * n);
  pick = <T>(xs: readonly T[]): T => xs[this.int(xs.length)];

  key(): Deno.KvKey {
    const top = this.pick(["a", "b"]);
    const second = this.pick<Deno.KvKeyPart>([
      "x",
      "y",
      "zz",
      1,
      2,
      10,
      -3,
      2.5,
      7n,
      true,
      new Uint8Array([0, 255]),
    ]);
    return this.r() < 0.5 ? [top, second] : [top, second, this.int(4)];
  }

  value(): unknown {
    return this.pick<() => unknown>([
      () => `s${this.int(100)}`,
      () => this.int(1000) - 500,
      () => ({ n: this.int(9), list: [1, "two", null], when: new Date(this.int(1e12)) }),
      () => new Uint8Array([this.pick([0, 1, 255]), this.int(256)]),
      () => BigInt(this.int(1e6)),
      () => new Map([["k", this.int(3)]]),
    ])();
  }

  async both<T>(what: string, f: (kv: Deno.Kv) => Promise<T>): Promise<[T, T]> {
    this.log.push(what);
    const pair: [T, T] = [await f(this.kv.remote), await f(this.kv.local)];
    const answer = pair[0];
    const list = Array.isArray(answer) ? answer : [answer];
    this.found += list.filter((e) => (e as Deno.KvEntryMaybe<unknown>)?.versionstamp).length;
    return pair;
  }

  async set() {
    const key = this.key(), value = this.value();
    const expireIn = this.r() < 0.2 ? 60_000 : undefined;
    const [a, b] = await this.both(
      `set ${Deno.inspect(key)}`,
      (kv) => kv.set(key, value, { expireIn }),
    );
    assert.equal(a.ok, b.ok);
    assert.match(a.versionstamp, VERSIONSTAMP);
    // The commit's versionstamp is the one the entry then carries (bytes ↔ hex both ways).
    assert.equal((await this.kv.remote.get(key)).versionstamp, a.versionstamp);
  }

  async get() {
    const key = this.key();
    const [a, b] = await this.both(`get ${Deno.inspect(key)}`, (kv) => kv.get(key));
    assert.deepEqual(entries([a]), entries([b]));
  }

  async getMany() {
    const keys = Array.from({ length: 1 + this.int(10) }, () => this.key());
    const [a, b] = await this.both(`getMany ${keys.length}`, (kv) => kv.getMany(keys));
    assert.deepEqual(entries(a), entries(b));
  }

  selector(): Deno.KvListSelector {
    const choice = this.int(4);
    if (choice === 0) return { prefix: [this.pick(["a", "b"])] };
    if (choice === 1) return { prefix: this.key().slice(0, 2) };
    if (choice === 2) {
      return { prefix: ["a"], start: ["a", this.pick<Deno.KvKeyPart>(["x", 2, 7n])] };
    }
    return {
      start: ["a", this.pick<Deno.KvKeyPart>([1, "x"])],
      end: ["b", this.pick<Deno.KvKeyPart>(["y", 10])],
    };
  }

  async list() {
    const selector = this.selector();
    const options = {
      limit: this.r() < 0.5 ? 1 + this.int(8) : undefined,
      reverse: this.r() < 0.5,
      batchSize: 1 + this.int(4),
    };
    const what = `list ${Deno.inspect(selector)} ${Deno.inspect(options)}`;
    const [a, b] = await this.both(what, (kv) => Array.fromAsync(kv.list(selector, options)));
    assert.deepEqual(entries(a), entries(b));
  }

  async listCursor() {
    const selector = { prefix: [this.pick(["a", "b"])] };
    const reverse = this.r() < 0.5, first = 1 + this.int(3);
    const [a, b] = await this.both(`list cursor ${first} ${reverse}`, async (kv) => {
      const iter = kv.list(selector, { limit: first, reverse });
      const head = await Array.fromAsync(iter);
      const tail = await Array.fromAsync(kv.list(selector, { cursor: iter.cursor, reverse }));
      return [...head, ...tail];
    });
    assert.deepEqual(entries(a), entries(b));
  }

  async atomicWithCheck() {
    const key = this.key(), other = this.key(), value = this.value();
    const stale = this.r() < 0.4;
    const [a, b] = await this.both(
      `atomic check ${stale ? "stale" : "fresh"} ${Deno.inspect(key)}`,
      async (kv) => {
        const current = await kv.get(key);
        // A stale check names a versionstamp the key cannot have now (absent if present, and back).
        const versionstamp = stale
          ? (current.versionstamp ? null : "00000000000000010000")
          : current.versionstamp;
        return await kv.atomic().check({ key, versionstamp }).set(key, value).delete(other)
          .commit();
      },
    );
    assert.equal(a.ok, b.ok);
    assert.equal(a.ok, !stale);
  }

  async u64() {
    const key = ["u", this.int(3)];
    const op = this.pick(["sum", "min", "max"] as const), n = BigInt(this.int(50));
    const [a, b] = await this.both(`${op} ${key} ${n}`, (kv) => kv.atomic()[op](key, n).commit());
    assert.equal(a.ok, b.ok);
    const [x, y] = await this.both(`get ${key}`, (kv) => kv.get(key));
    assert.deepEqual(entries([x]), entries([y]));
  }

  async delete() {
    const key = this.key();
    await this.both(`delete ${Deno.inspect(key)}`, (kv) => kv.delete(key));
  }
}

async function run(ops: Ops, count: number, versionstamps: string[]) {
  const kinds = [
    "set",
    "set",
    "get",
    "getMany",
    "list",
    "list",
    "listCursor",
    "atomicWithCheck",
    "u64",
    "delete",
  ] as const;
  for (let i = 0; i < count; i++) {
    await ops[ops.pick(kinds)]();
    if (i % 25 === 0) versionstamps.push((await ops.kv.remote.set(["clock"], i)).versionstamp);
  }
}

Deno.test("kv-connect: Deno's remote client through the test server answers 300 random operations as a local KV does", async () => {
  await using server = await startKvConnectServer();
  using remote = await openKvConnect(server);
  using local = await Deno.openKv(":memory:");
  for (const seed of [1, 2, 3]) {
    const log: string[] = [];
    const versionstamps: string[] = [];
    const ops = new Ops({ remote, local }, rng(seed), log);
    try {
      await run(ops, 100, versionstamps);
    } catch (e) {
      throw new Error(`seed ${seed}, after: ${log.slice(-3).join(" | ")}`, { cause: e });
    }
    assert.deepEqual(
      versionstamps,
      [...versionstamps].sort(),
      "versionstamps grow with every commit",
    );
    assert.ok(ops.found > 100, `seed ${seed} read only ${ops.found} existing entries`);
  }
  const counts = server.counts();
  assert.ok(counts.snapshot_read > 300 && counts.atomic_write > 100, Deno.inspect(counts));
});
