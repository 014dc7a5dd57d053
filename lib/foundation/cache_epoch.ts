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
/** How often an instance re-states its acknowledgement, and how long one stays valid. */
const ACK_HEARTBEAT_MS = 10_000;
const ACK_TTL_MS = 30_000;

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
  /** Identifies this instance's acknowledgement key. */
  readonly #instanceId = crypto.randomUUID();
  #heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
    this.#done = this.#watch();
    // The acknowledgement doubles as a liveness heartbeat: an instance that stops refreshing it
    // drops out of the set a revocation waits for once its TTL lapses.
    this.#heartbeat = setInterval(() => this.#acknowledge(), ACK_HEARTBEAT_MS);
    Deno.unrefTimer(this.#heartbeat);
  }

  /** Records, for revokers on any instance, that this instance has applied `#seenStamp`. */
  async #acknowledge(): Promise<void> {
    if (this.#closed || !this.#live) return;
    try {
      await this.#kv.set(
        keys.cacheEpochSeen(this.#instanceId),
        { stamp: this.#seenStamp, at: Date.now() },
        { expireIn: ACK_TTL_MS },
      );
    } catch (err) {
      if (!this.#closed) console.error("cache-epoch ack failed:", (err as Error).message);
    }
  }

  /**
   * Resolves once every live instance has acknowledged the epoch at `versionstamp` (or after
   * `timeoutMs`): a revocation answers only after every instance's caches dropped the token, so
   * "revoked" means refused on the very next call, wherever it lands.
   */
  async awaitAcknowledged(versionstamp: string, timeoutMs = 1000): Promise<void> {
    await this.awaitPublished(versionstamp, timeoutMs);
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      let behind = false;
      const now = Date.now();
      for await (
        const entry of this.#kv.list<{ stamp: string; at: number }>({
          prefix: keys.cacheEpochSeenAll(),
        })
      ) {
        // Expired keys may linger briefly (Deno KV docs); judge liveness by the stored time too.
        if (now - entry.value.at > ACK_TTL_MS) continue;
        if (entry.value.stamp < versionstamp) behind = true;
      }
      if (!behind) return;
      await new Promise((r) => setTimeout(r, 2));
    }
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
          await this.#acknowledge();
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
    clearInterval(this.#heartbeat);
    await this.#kv.delete(keys.cacheEpochSeen(this.#instanceId)).catch(() => {});
    this.#live = false;
    try {
      await this.#reader?.cancel();
    } catch {
      // already closed
    }
    await this.#done.catch(() => {});
  }
}
