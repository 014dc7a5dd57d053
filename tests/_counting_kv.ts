/**
 * A KV handle that counts the keys it reads (issue #22): `get` one, `getMany` each key asked for,
 * `list` each entry it yields. The benchmark and the tests use it to show what an operation reads
 * grows with what it touches, not with the instance. Everything else passes through unchanged.
 */

/** A KV that counts its reads; `reads` is the running total. */
export interface CountingKv {
  kv: Deno.Kv;
  reads(): number;
  reset(): void;
}

/** Wraps `kv`; the wrapper shares its handle (closing either closes both). */
export function countingKv(kv: Deno.Kv): CountingKv {
  let reads = 0;
  const wrapped: Partial<Deno.Kv> = {
    get: ((key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) => {
      reads++;
      return kv.get(key, options);
    }) as Deno.Kv["get"],
    getMany: ((list: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) => {
      reads += list.length;
      return kv.getMany(list, options);
    }) as Deno.Kv["getMany"],
    list: ((selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
      const inner = kv.list(selector, options);
      const counted = (async function* () {
        for await (const e of inner) {
          reads++;
          yield e;
        }
      })();
      return Object.defineProperty(counted, "cursor", { get: () => inner.cursor });
    }) as unknown as Deno.Kv["list"],
  };
  const proxy = new Proxy(kv, {
    get(target, name) {
      if (name in wrapped) return wrapped[name as keyof Deno.Kv];
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: proxy, reads: () => reads, reset: () => void (reads = 0) };
}
