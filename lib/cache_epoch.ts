/**
 * Per-instance cache invalidation that reaches every instance at once (spec "API token": revocation
 * is immediate). Every write that can make a cached answer wrong (a token revoked, a record
 * written) sums `cache_epoch` in the same `kv.atomic()`; every instance watches that one key and
 * bumps its local `generation` when it moves. A cache entry is trusted only while the generation it
 * was read under is still current, so after any change it is re-read once from KV.
 *
 * Why a watch and not a read per request: a `kv.get` costs ~0.25 ms of waiting and a commit an
 * fsync (reference/perf-anchors.md); the hot path (`tools/call`) must do neither.
 */

import { keys } from "./kv_keys.ts";

/** The local view of the shared cache epoch. */
export class CacheEpoch {
  readonly #kv: Deno.Kv;
  #generation = 0;
  /** False until the watch has delivered its first value, and again if it fails. */
  #live = false;
  #reader: ReadableStreamDefaultReader<Deno.KvEntryMaybe<unknown>[]> | null = null;
  #closed = false;
  readonly #done: Promise<void>;
  #seenStamp = "";
  readonly #waiters = new Set<{ stamp: string; resolve: () => void }>();

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
    this.#done = this.#watch();
  }

  /**
   * The current generation. While the watch is not live every call returns a new value, so no
   * cache entry is ever trusted: correctness never depends on the watch, only speed does.
   */
  get generation(): number {
    return this.#live ? this.#generation : ++this.#generation;
  }

  /** Invalidates every local entry now; the writer calls it right after its commit. */
  bumpLocal(): void {
    this.#generation++;
  }

  /**
   * Resolves once this instance's watch has seen the epoch at `versionstamp` (or after
   * `timeoutMs`). A revocation waits for it before answering, so by the time the client hears
   * "revoked", the change has been published to watchers — every instance's caches included.
   */
  awaitPublished(versionstamp: string, timeoutMs = 200): Promise<void> {
    if (!this.#live || versionstamp <= this.#seenStamp) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        stamp: versionstamp,
        resolve: () => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.resolve, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  async #watch(): Promise<void> {
    while (!this.#closed) {
      try {
        this.#reader = this.#kv.watch([keys.cacheEpoch()]).getReader();
        while (!this.#closed) {
          const { done, value } = await this.#reader.read();
          if (done) break;
          this.#generation++;
          this.#live = true;
          const stamp = value[0]?.versionstamp;
          if (stamp && stamp > this.#seenStamp) this.#seenStamp = stamp;
          for (const waiter of [...this.#waiters]) {
            if (waiter.stamp <= this.#seenStamp) waiter.resolve();
          }
        }
      } catch (err) {
        if (!this.#closed) console.error("cache-epoch watch failed:", (err as Error).message);
      }
      this.#live = false;
      if (!this.#closed) await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Stops watching (call before closing the KV). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    try {
      await this.#reader?.cancel();
    } catch {
      // already closed
    }
    await this.#done.catch(() => {});
  }
}
