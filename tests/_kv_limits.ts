/**
 * A `Deno.Kv` that refuses what the strictest KV the service supports refuses (issue #19). The
 * service runs on Deno's local SQLite KV, Deno Deploy KV and the self-hosted `denokv` server
 * (shared/reference/remote-kv.md, "Transaction and size limits"); an operation must fit all of
 * them. The local KV allows 100 checks per atomic where `denokv` allows 10 (proto/limits.rs
 * `MAX_CHECKS`), so code tested only on the local KV fails in production on `denokv`.
 *
 * `limitKv(kv)` is a Proxy around a real KV: every method is the real one (same results, same
 * `instanceof Deno.Kv`), but arguments and atomic operations are measured first, and what is over
 * a limit throws a `TypeError` worded as Deno's own. The atomic checks happen at `commit()`, as
 * Deno's do. Value sizes are V8-serialised sizes (`node:v8` `serialize`, what Deno stores for
 * anything but a `Uint8Array` or `Deno.KvU64`), within a few bytes of Deno's own encoding.
 */

import { keySize, KV_LIMITS, valueSize } from "../lib/foundation/kv_limits.ts";

export { keySize, KV_LIMITS, valueSize };

/** A value's size, or 0 when it cannot be serialised (the real KV throws its own error then). */
function storedSize(value: unknown): number {
  try {
    return valueSize(value);
  } catch {
    return 0;
  }
}

function refuse(message: string): never {
  throw new TypeError(message);
}

function checkWriteKey(key: Deno.KvKey): number {
  const size = keySize(key);
  if (size > KV_LIMITS.writeKeyBytes) {
    refuse(`Key too large for write (max ${KV_LIMITS.writeKeyBytes} bytes)`);
  }
  return size;
}

function checkReadKey(key: Deno.KvKey): void {
  if (keySize(key) > KV_LIMITS.readKeyBytes) {
    refuse(`Key too large for read (max ${KV_LIMITS.readKeyBytes} bytes)`);
  }
}

function checkValue(value: unknown, what = "Value"): number {
  const size = storedSize(value);
  if (size > KV_LIMITS.valueBytes) refuse(`${what} too large (max ${KV_LIMITS.valueBytes} bytes)`);
  return size;
}

/** What one atomic operation holds so far; Deno, too, refuses only at `commit()`. */
class AtomicTally {
  checks = 0;
  mutations = 0;
  bytes = 0;
  keyBytes = 0;
  /** The first key or value over its own limit. */
  problem: TypeError | null = null;

  key(key: Deno.KvKey): void {
    try {
      const size = checkWriteKey(key);
      this.bytes += size;
      this.keyBytes += size;
    } catch (err) {
      this.problem ??= err as TypeError;
    }
  }

  value(value: unknown, what?: string): void {
    try {
      this.bytes += checkValue(value, what);
    } catch (err) {
      this.problem ??= err as TypeError;
    }
  }

  /** Throws what the strictest KV throws for this operation (Deno's wording). */
  verify(): void {
    const l = KV_LIMITS;
    if (this.problem) throw this.problem;
    if (this.checks > l.checksPerAtomic) refuse(`Too many checks (max ${l.checksPerAtomic})`);
    if (this.mutations > l.mutationsPerAtomic) {
      refuse(`Too many mutations (max ${l.mutationsPerAtomic})`);
    }
    if (this.keyBytes > l.atomicKeyBytes) {
      refuse(`Total key size too large (max ${l.atomicKeyBytes} bytes)`);
    }
    if (this.bytes > l.atomicBytes) {
      refuse(`Total mutation size too large (max ${l.atomicBytes} bytes)`);
    }
  }
}

/** An atomic operation that tallies what it is given and checks the tally at `commit()`. */
function limitAtomic(real: Deno.AtomicOperation): Deno.AtomicOperation {
  const tally = new AtomicTally();
  const proxy: Deno.AtomicOperation = new Proxy(real, {
    get(target, prop) {
      const original = Reflect.get(target, prop, target);
      if (typeof original !== "function") return original;
      const tallied = tallies[prop as string];
      if (prop === "commit") {
        return async () => {
          tally.verify();
          return await target.commit();
        };
      }
      if (!tallied) return original.bind(target);
      return (...args: unknown[]) => {
        tallied(tally, args);
        original.apply(target, args);
        return proxy;
      };
    },
  });
  return proxy;
}

type Tallier = (tally: AtomicTally, args: unknown[]) => void;

const mutation: Tallier = (tally, [key, value]) => {
  tally.mutations++;
  tally.key(key as Deno.KvKey);
  if (value !== undefined) tally.value(value);
};

const tallies: Record<string, Tallier> = {
  check(tally, checks) {
    for (const c of checks as Deno.AtomicCheck[]) {
      tally.checks++;
      tally.key(c.key);
    }
  },
  mutate(tally, mutations) {
    for (const m of mutations as Deno.KvMutation[]) {
      mutation(tally, [m.key, "value" in m ? m.value : undefined]);
    }
  },
  set: mutation,
  sum: mutation,
  min: mutation,
  max: mutation,
  delete: (tally, [key]) => mutation(tally, [key]),
  enqueue(tally, [value]) {
    tally.mutations++;
    tally.value(value, "enqueue payload");
  },
};

function checkSelector(selector: Deno.KvListSelector): void {
  for (const part of ["prefix", "start", "end"] as const) {
    const key = (selector as Record<string, Deno.KvKey | undefined>)[part];
    if (key) checkReadKey(key);
  }
}

/** The KV methods whose arguments are measured before the real method runs. */
const guards: Record<string, (args: unknown[]) => void> = {
  get: ([key]) => checkReadKey(key as Deno.KvKey),
  getMany([keyList]) {
    const list = keyList as Deno.KvKey[];
    if (list.length > KV_LIMITS.keysPerRead) {
      refuse(`Too many ranges (max ${KV_LIMITS.keysPerRead})`);
    }
    list.forEach(checkReadKey);
  },
  list([selector, options]) {
    checkSelector(selector as Deno.KvListSelector);
    const batch = (options as Deno.KvListOptions | undefined)?.batchSize ?? 0;
    if (batch > KV_LIMITS.listBatch) refuse(`Too many entries (max ${KV_LIMITS.listBatch})`);
  },
  set([key, value]) {
    const tally = new AtomicTally();
    mutation(tally, [key, value]);
    tally.verify();
  },
  delete: ([key]) => void checkWriteKey(key as Deno.KvKey),
  enqueue: ([value]) => void checkValue(value, "enqueue payload"),
  watch([keyList]) {
    const list = keyList as Deno.KvKey[];
    if (list.length > KV_LIMITS.watchKeys) refuse(`Too many keys (max ${KV_LIMITS.watchKeys})`);
    list.forEach(checkReadKey);
  },
};

/** A list iterator that rejects its first step with `err`, as Deno's does for a bad batch size. */
function refusedList(err: unknown): AsyncIterableIterator<never> {
  const it: AsyncIterableIterator<never> = {
    next: () => Promise.reject(err),
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}

/** Whether `kv` is a `limitKv` wrapper. */
const limited = new WeakSet<Deno.Kv>();

/**
 * Wraps a real KV so that every operation over the strictest supported limit throws (see
 * `KV_LIMITS`); everything else is the real KV's behaviour and result.
 */
export function limitKv(kv: Deno.Kv): Deno.Kv {
  if (limited.has(kv)) return kv;
  const wrapper = new Proxy(kv, {
    get(target, prop) {
      const original = Reflect.get(target, prop, target);
      if (typeof original !== "function") return original;
      if (prop === "atomic") return () => limitAtomic(target.atomic());
      const guard = typeof prop === "string" ? guards[prop] : undefined;
      if (!guard) return original.bind(target);
      return (...args: unknown[]) => {
        // A refusal arrives where the real KV's does: `watch` throws at once, `list` when the
        // iteration starts, every other method rejects its promise.
        try {
          guard(args);
        } catch (err) {
          if (prop === "watch") throw err;
          if (prop === "list") {
            return refusedList(err);
          }
          return Promise.reject(err);
        }
        return original.apply(target, args);
      };
    },
  });
  limited.add(wrapper);
  return wrapper;
}

/** Opens a KV (default `:memory:`) wrapped by `limitKv`. Close it like any KV. */
export async function openLimitedKv(path = ":memory:"): Promise<Deno.Kv> {
  return limitKv(await Deno.openKv(path));
}
