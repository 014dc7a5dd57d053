/**
 * The rate limiter's per-instance memory (issue #13): window states in least-recently-used order
 * under a hard cap, the set of states that owe increments to KV, and batched reads of the shared
 * counts. Together they keep a flush's cost proportional to the traffic since the last flush, not
 * to the number of subjects ever seen: 50,000 client addresses are 50,000 states at most once,
 * and only the ones that served a request since the last flush are walked, committed and re-read.
 */

import { keys } from "../foundation/kv_keys.ts";
import { logEvent } from "../foundation/log.ts";

/**
 * One (policy, subject, window) as this instance sees it. Its KV keys are built when used
 * (`windowKey`), not kept: with many client addresses a state usually serves one request and is
 * flushed once, and two kept key arrays were about 40 % of its memory (issue #13).
 */
export interface WindowState {
  /** `policy\0subject\0windowIndex`. */
  id: string;
  policy: string;
  subject: string;
  /** Index of the window (`floor(now / w)`) and its length in seconds. */
  index: number;
  w: number;
  /** The effective quota of the window's policy. */
  limit: number;
  /** The member a member-keyed counter counts for (its account is checked on commit). */
  member: string | null;
  /** Global count last read from KV, plus this instance's increments committed since. */
  shared: number;
  /** Increments counted here but not yet committed. */
  pending: number;
  /**
   * Of `pending`, the increments a flush is committing now: a read that returns meanwhile may or
   * may not include them, so it is taken as if it did (`BatchedReads`), never counting them twice.
   */
  committing: number;
  /** Whether this instance has committed the counter's sweep key (rate_limit.ts `indexCounter`). */
  indexed: boolean;
  /** Global count of the previous window (fixed once that window has ended). */
  previous: number;
  /** Whether `shared` and `previous` have been read from KV at least once. */
  known: boolean;
  /** `performance.now()` of the last read of `shared`. */
  refreshedAt: number;
  /** Requests this instance counted far from the limit since the last read began. */
  spentOnView: number;
  /** The read of `shared` in flight, shared by every request that waits for it. */
  refreshing: Promise<void> | null;
  /** Used since eviction last passed it: its second chance (`WindowStates`). */
  recentlyUsed: boolean;
  /** Flushes in a row whose commit of this state's counts failed (rate_limit.ts `#settleFailed`). */
  failedFlushes: number;
}

/** The KV counter of the state's window, or (`offset` −1) of the window before it. */
export function windowKey(state: WindowState, offset: 0 | -1 = 0): Deno.KvKey {
  return keys.rateLimitWindow(state.policy, state.subject, state.index + offset);
}

/** Deno KV's limit is 10 keys per `getMany`. */
const KEYS_PER_READ = 10;

/**
 * Window states by id, evicted in "second chance" (CLOCK) order, which approximates least recently
 * used: a `Map` keeps insertion order, a touch only marks the state used, and eviction walks from
 * the oldest, moving a used state to the end (clearing its mark) and dropping an unused one. A
 * touch must not re-insert: V8 takes about 45 µs to delete and re-add one key of a Map holding
 * thousands (measured on Deno 2.9.6), so one busy subject among many idle ones halved the
 * service's throughput. States owing increments (`pending > 0`) are never evicted: their counts
 * must reach KV first.
 */
export class WindowStates {
  readonly #states = new Map<string, WindowState>();
  /** States with increments not yet committed: all that a flush needs to walk. */
  readonly dirty = new Set<WindowState>();
  readonly #maxStates: number;
  /** Size past which `add` walks the oldest states (the cap, or more while states owe counts). */
  #evictAbove: number;

  constructor(maxStates: number) {
    this.#maxStates = maxStates;
    this.#evictAbove = maxStates;
  }

  get size(): number {
    return this.#states.size;
  }

  /** The state of `id`, marked used; `undefined` if absent or evicted. */
  touch(id: string): WindowState | undefined {
    const state = this.#states.get(id);
    if (state) state.recentlyUsed = true;
    return state;
  }

  /** The state of `id` without marking it used. */
  peek(id: string): WindowState | undefined {
    return this.#states.get(id);
  }

  /**
   * Adds a state; past the cap, evicts (second chance, see `evict`) down to 90 % of it. Evicting
   * in bulk matters: a `Map` keeps deleted slots until it rehashes, and a walk from the oldest entry
   * steps over them, so evicting one state per insertion would cost a walk over thousands each.
   */
  add(state: WindowState, now: number): void {
    this.#states.set(state.id, state);
    if (this.#states.size <= this.#evictAbove) return;
    this.evict(now, Math.floor(this.#maxStates * 0.9));
    // States owing increments cannot go until the next flush: if too many remained, the next
    // walk waits for another tenth of the cap rather than repeat this one on every insertion.
    this.#evictAbove = Math.max(this.#maxStates, this.#states.size + this.#maxStates / 10);
  }

  /**
   * Drops, oldest first, states no window can use any more (older than the previous window, which
   * still weighs in the sliding estimate) and states beyond the cap, until `target` states remain.
   * Past the cap a state used since it was last passed gets a second chance (moved to the end, its
   * mark cleared) and a state that owes increments is skipped. Stops at the first state it keeps
   * once under `target`, and visits each state at most once, so the cost is the number evicted
   * plus those passed over.
   */
  evict(now: number, target = this.#maxStates): void {
    this.#evictAbove = this.#maxStates;
    let visits = this.#states.size;
    for (const state of this.#states.values()) {
      if (visits-- === 0) return;
      const ended = state.index < Math.floor(now / (state.w * 1000)) - 1;
      const over = this.#states.size > target;
      if (!ended && !over) return;
      const owes = state.pending > 0 || this.dirty.has(state);
      if (owes) {
        if (!over) return;
      } else if (!ended && state.recentlyUsed) {
        state.recentlyUsed = false;
        this.#states.delete(state.id);
        this.#states.set(state.id, state);
      } else {
        this.#states.delete(state.id);
      }
    }
  }
}

interface QueuedRead {
  state: WindowState;
  done: () => void;
}

/**
 * Reads of shared counts, coalesced: every state asked for in one turn of the event loop is read
 * in `getMany` calls of up to ten keys, issued concurrently. A state already being read is not read
 * twice; its waiters share the one promise.
 */
export class BatchedReads {
  readonly #kv: Deno.Kv;
  #queue: QueuedRead[] = [];

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Re-reads `state.shared` (and, the first time, `state.previous`); never rejects. */
  refresh(state: WindowState): Promise<void> {
    state.refreshing ??= new Promise<void>((done) => {
      if (this.#queue.length === 0) queueMicrotask(() => this.#drain());
      this.#queue.push({ state, done });
    });
    return state.refreshing;
  }

  #drain(): void {
    const queued = this.#queue;
    this.#queue = [];
    let chunk: QueuedRead[] = [];
    let keyCount = 0;
    for (const item of queued) {
      const needed = item.state.known ? 1 : 2;
      if (keyCount + needed > KEYS_PER_READ) {
        void this.#read(chunk);
        chunk = [];
        keyCount = 0;
      }
      chunk.push(item);
      keyCount += needed;
    }
    if (chunk.length > 0) void this.#read(chunk);
  }

  async #read(chunk: QueuedRead[]): Promise<void> {
    const keys = chunk.flatMap(({ state }) =>
      state.known ? [windowKey(state)] : [windowKey(state), windowKey(state, -1)]
    );
    // What was spent before the read began is in the count it returns (once flushed) or in
    // `pending`; what is spent while it is in flight is spent on the view it replaces.
    const spentBefore = chunk.map(({ state }) => state.spentOnView);
    try {
      const entries = await this.#kv.getMany<Deno.KvU64[]>(keys);
      let i = 0;
      for (const { state } of chunk) {
        // A window's count only grows: a read that began before one of our flushes landed must
        // not hand back quota already spent, so keep the larger. A read that returns while our
        // flush is in flight may already hold the counts still in `pending`: taken with them
        // (their settling adds them to `shared`), it would count them twice until an exact
        // commit corrected it, and `remaining` would rise (issue #23).
        const read = Number(entries[i++].value?.value ?? 0n);
        state.shared = Math.max(state.shared, read - state.committing);
        if (!state.known) {
          state.previous = Math.max(state.previous, Number(entries[i++].value?.value ?? 0n));
        }
      }
    } catch (err) {
      // Storage unreachable: keep counting from what is known (fail open) rather than refuse
      // every request; the health check reports the outage.
      logEvent("warn", "rate-limit read failed", { cause: (err as Error).message });
    } finally {
      const now = performance.now();
      chunk.forEach(({ state }, i) => state.spentOnView -= spentBefore[i]);
      for (const { state, done } of chunk) {
        state.known = true;
        state.refreshedAt = now;
        state.refreshing = null;
        done();
      }
    }
  }
}
