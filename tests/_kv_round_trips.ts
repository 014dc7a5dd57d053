/**
 * A `Deno.Kv` that counts round trips (issue #21, "Round trips as a budget, asserted in tests").
 * On a remote KV (Deno Deploy, `denokv`) every strong read is one request to the primary: 7 ms in
 * region, ~95 ms from Frankfurt to us-east4. What a request costs there is how many requests it
 * makes one after the other, so a budget counts depth, not only calls.
 *
 * `countRoundTrips(kv)` is a Proxy around a real KV (same results, `instanceof Deno.Kv`) that
 * counts the calls Deno's KV Connect client turns into one request each: a `get`, a `getMany`
 * (one `snapshot_read` of several ranges), each page of a `list` (one `snapshot_read` of
 * `batchSize` entries), and an atomic `commit()`, `set` or `delete` (one `atomic_write`).
 * tests/round_trips_test.ts shows these counts equal the requests the KV Connect test server
 * receives, so they transfer to any remote KV.
 *
 * Depth: a call that begins after another call has ended may depend on it, so its depth is one
 * more than the deepest call ended before it began; calls issued together (a `Promise.all`)
 * share a depth. `sequential` is the deepest call: the round trips a request waits through.
 */

/** What a counting KV has seen since it was made or reset. */
export interface RoundTrips {
  /** Read requests: `get`, `getMany`, one page of a `list`. */
  reads: number;
  /** Write requests: an atomic `commit()`, `set`, `delete`. */
  commits: number;
  /** Sequential round trips, reads and writes. */
  sequential: number;
  /** Sequential read round trips (a chain of reads, each begun after the one before ended). */
  sequentialReads: number;
  /**
   * Keys read: one per `get`, one per key of a `getMany`, one per entry a `list` yields (what an
   * operation reads grows with what it touches, issue #22).
   */
  keysRead: number;
  /** Every request, in order of start, with its depth (for failure messages). */
  log: string[];
}

/** A counting KV and its counts. */
export interface CountingKv {
  kv: Deno.Kv;
  counts(): RoundTrips;
  reset(): void;
}

type Kind = "read" | "commit";

/** Depth bookkeeping: the deepest call ended so far, over all calls and over reads. */
class Tally {
  keysRead = 0;
  reads = 0;
  commits = 0;
  sequential = 0;
  sequentialReads = 0;
  log: string[] = [];

  async track<T>(kind: Kind, what: string, call: () => Promise<T>): Promise<T> {
    const depth = this.sequential + 1;
    const readDepth = kind === "read" ? this.sequentialReads + 1 : this.sequentialReads;
    if (kind === "read") this.reads++;
    else this.commits++;
    this.log.push(`${depth} ${kind} ${what}`);
    try {
      return await call();
    } finally {
      this.sequential = Math.max(this.sequential, depth);
      this.sequentialReads = Math.max(this.sequentialReads, readDepth);
    }
  }
}

/** A short name of a key for the log: its first part, and a second one when it is short. */
function nameOf(key: Deno.KvKey | undefined): string {
  if (!key || key.length === 0) return "[]";
  return String(key[0]);
}

/** Deno's own default (ext/kv/01_db.ts `list`): the limit, else 100, at most 500 when not given. */
function batchOf(options: Deno.KvListOptions = {}): number {
  if (options.batchSize !== undefined) return options.batchSize;
  return Math.min(options.limit ?? 100, 500);
}

/**
 * Wraps a list iterator: Deno's iterator reads a page when its buffer is empty, so a step reads
 * when `batchSize` entries (or none yet) have been handed out, the limit is not reached and the
 * last page was full (a short page ends the iteration before the next multiple of the batch).
 */
function countedList<T>(
  real: Deno.KvListIterator<T>,
  selector: Deno.KvListSelector,
  options: Deno.KvListOptions | undefined,
  tally: Tally,
): Deno.KvListIterator<T> {
  const batch = batchOf(options);
  const limit = options?.limit;
  const what = `list ${nameOf("prefix" in selector ? selector.prefix : selector.start)}`;
  let handed = 0;
  let finished = false;
  const next = async (): Promise<IteratorResult<Deno.KvEntry<T>, undefined>> => {
    const pulls = !finished && (limit === undefined || handed < limit) && handed % batch === 0;
    const step = () => real.next();
    const result = pulls ? await tally.track("read", what, step) : await step();
    if (result.done) finished = true;
    else {
      handed++;
      tally.keysRead++;
    }
    return result;
  };
  const proxy: Deno.KvListIterator<T> = new Proxy(real, {
    get(target, prop) {
      if (prop === "next") return next;
      if (prop === Symbol.asyncIterator) return () => proxy;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return proxy;
}

/** An atomic operation whose `commit()` counts; its chained calls keep returning the wrapper. */
function countedAtomic(real: Deno.AtomicOperation, tally: Tally): Deno.AtomicOperation {
  const keys: string[] = [];
  const proxy: Deno.AtomicOperation = new Proxy(real, {
    get(target, prop) {
      const original = Reflect.get(target, prop, target);
      if (typeof original !== "function") return original;
      if (prop === "commit") {
        return () =>
          tally.track("commit", `atomic ${[...new Set(keys)].join(",")}`, () => target.commit());
      }
      return (...args: unknown[]) => {
        const first = args[0];
        if (Array.isArray(first) && prop !== "check" && prop !== "mutate") {
          keys.push(nameOf(first as Deno.KvKey));
        }
        original.apply(target, args);
        return proxy;
      };
    },
  });
  return proxy;
}

/** The counted methods of a KV; anything else is the real one. */
function countedMethods(target: Deno.Kv, tally: Tally): Record<string, unknown> {
  return {
    get: (key: Deno.KvKey, opts?: unknown) => {
      tally.keysRead++;
      return tally.track("read", `get ${nameOf(key)}`, () => target.get(key, opts as never));
    },
    getMany: (list: Deno.KvKey[], opts?: unknown) => {
      tally.keysRead += list.length;
      return tally.track(
        "read",
        `getMany ${[...new Set(list.map(nameOf))].join(",")}`,
        () => target.getMany(list, opts as never),
      );
    },
    list: (selector: Deno.KvListSelector, opts?: Deno.KvListOptions) =>
      countedList(target.list(selector, opts), selector, opts, tally),
    atomic: () => countedAtomic(target.atomic(), tally),
    set: (key: Deno.KvKey, value: unknown, opts?: unknown) =>
      tally.track("commit", `set ${nameOf(key)}`, () => target.set(key, value, opts as never)),
    delete: (key: Deno.KvKey) =>
      tally.track("commit", `delete ${nameOf(key)}`, () => target.delete(key)),
  };
}

/** Wraps `kv`; see the module comment. */
export function countRoundTrips(kv: Deno.Kv): CountingKv {
  let tally = new Tally();
  const counted = (t: Deno.Kv) => countedMethods(t, tally);
  let methods = counted(kv);
  const proxy = new Proxy(kv, {
    get(target, prop) {
      if (typeof prop === "string" && prop in methods) return methods[prop];
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    kv: proxy,
    counts: () => ({
      reads: tally.reads,
      commits: tally.commits,
      sequential: tally.sequential,
      sequentialReads: tally.sequentialReads,
      keysRead: tally.keysRead,
      log: [...tally.log],
    }),
    reset() {
      tally = new Tally();
      methods = counted(kv);
    },
  };
}

/** Runs `fn` with the counts reset before and returns the counts it made, with its result. */
export async function measure<T>(
  counting: CountingKv,
  fn: () => Promise<T>,
): Promise<{ result: T; trips: RoundTrips }> {
  counting.reset();
  const result = await fn();
  return { result, trips: counting.counts() };
}
