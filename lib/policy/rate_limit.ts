/**
 * Sliding-window rate limiting with counters in Deno KV, shared by every instance on one KV
 * (DESIGN §6). HTTP-free: `lib/http/rate_limit.ts` turns an outcome into headers.
 *
 * Why not one KV commit per request: a local-SQLite KV commit waits on an fsync (~0.5–0.9 ms) and
 * commits do not batch by themselves, so a commit per request caps the server near 1k req/s
 * (reference/perf-anchors.md). Instead each instance keeps hot state in memory and:
 *
 * - far from the limit, counts locally and flushes all pending increments in one `kv.atomic()`
 *   of `sum` mutations every `flushIntervalMs`, then reads back the global totals;
 * - near the limit (less than `exactMargin` left by its estimate), serializes: reads the global
 *   counter and increments it with a versionstamp check, so the last requests of a quota are
 *   decided exactly even when several instances share the KV.
 *
 * The estimate is the classic two-window approximation of a sliding window:
 * `previous × (1 − elapsed/w) + current`.
 */

import type { Clock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { commitKv, isTransientKvError, RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { logError, logEvent } from "../foundation/log.ts";

/** What a policy's subject is. */
export type PolicySubject = "member" | "client IP" | "member (IP for healthCheck)";

/** One row of the policy table. */
export interface RateLimitPolicy {
  name: string;
  /** Quota: requests allowed per window. */
  q: number;
  /** Window length in seconds. */
  w: number;
  keyedBy: PolicySubject;
  governs: string;
}

/** The policy table of DESIGN §6. `x-ratelimit-policies` and the docs are generated from it. */
export const RATE_LIMIT_POLICIES = {
  mcp: { name: "mcp", q: 120, w: 60, keyedBy: "member", governs: "tools/call on /api/mcp" },
  "mcp-meta": {
    name: "mcp-meta",
    q: 600,
    w: 60,
    keyedBy: "client IP",
    governs: "other methods on /api/mcp",
  },
  sandbox: { name: "sandbox", q: 120, w: 60, keyedBy: "client IP", governs: "/api/sandbox" },
  auth: { name: "auth", q: 10, w: 60, keyedBy: "client IP", governs: "/api/auth" },
  tokens: { name: "tokens", q: 30, w: 60, keyedBy: "member", governs: "/api/tokens" },
  proxy: {
    name: "proxy",
    q: 300,
    w: 60,
    keyedBy: "member (IP for healthCheck)",
    governs: "/api/proxy",
  },
  oauth: { name: "oauth", q: 60, w: 60, keyedBy: "client IP", governs: "/api/oauth/*" },
  public: {
    name: "public",
    q: 600,
    w: 60,
    keyedBy: "client IP",
    governs: "discovery documents, docs, pages, static files",
  },
} as const satisfies Record<string, RateLimitPolicy>;

/** A policy name. */
export type PolicyName = keyof typeof RATE_LIMIT_POLICIES;

/** The result of counting one request. */
export interface RateLimitOutcome {
  policy: PolicyName;
  /** Effective quota (after the configured multiplier). */
  limit: number;
  window: number;
  allowed: boolean;
  /** Requests left in the sliding window after this one. */
  remaining: number;
  /** Seconds until the current window ends (the `t` parameter). */
  resetSeconds: number;
  /** On rejection: seconds until a request would be allowed (never earlier than `t`'s meaning). */
  retryAfterSeconds: number;
}

/** Options of a `RateLimiter`. */
export interface RateLimiterOptions {
  /** Multiplies every quota (benchmarks raise it so the limiter counts but never rejects). */
  multiplier?: number;
  /** How often pending increments are committed. */
  flushIntervalMs?: number;
  /** Below this many requests left (by estimate), every request is decided by an exact commit. */
  exactMargin?: number;
}

interface WindowState {
  /** Global count last read from KV (includes this instance's flushed increments). */
  shared: number;
  /** `performance.now()` of the last read of `shared`; older than a flush interval is stale. */
  refreshedAt: number;
  /** A read of `shared` in flight, shared by concurrent requests. */
  refreshing: Promise<void> | null;
  /** Increments counted here but not yet committed. */
  pending: number;
  /** Global count of the window before this one (fixed once that window has ended). */
  previous: number | null;
}

/** The member a window id (`policy\0subject\0index`) counts for, or `null` for an address. */
function memberOfWindow(id: string): string | null {
  const [policy, subject] = id.split("\0");
  const keyedBy = RATE_LIMIT_POLICIES[policy as PolicyName]?.keyedBy ?? "";
  return keyedBy.startsWith("member") && !subject.startsWith("ip:") ? subject : null;
}

/** Counts requests per (policy, subject) in sliding windows backed by KV. */
export class RateLimiter {
  readonly #kv: Deno.Kv;
  readonly #clock: Clock;
  readonly #multiplier: number;
  readonly #flushIntervalMs: number;
  readonly #exactMargin: number;
  /** `policy\0subject\0windowIndex` → state. Old windows are pruned on flush. */
  readonly #windows = new Map<string, WindowState>();
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> | null = null;
  #closed = false;
  #lastSweep = 0;

  constructor(kv: Deno.Kv, clock: Clock, options: RateLimiterOptions = {}) {
    this.#kv = kv;
    this.#clock = clock;
    this.#multiplier = options.multiplier ?? 1;
    this.#flushIntervalMs = options.flushIntervalMs ?? 10;
    this.#exactMargin = options.exactMargin ?? 20;
  }

  /** The effective quota of a policy. */
  limitOf(policy: PolicyName): number {
    return Math.max(1, Math.floor(RATE_LIMIT_POLICIES[policy].q * this.#multiplier));
  }

  /** Counts one request of `subject` under `policy`, unless it is over the limit. */
  async hit(policy: PolicyName, subject: string): Promise<RateLimitOutcome> {
    const w = RATE_LIMIT_POLICIES[policy].w;
    const limit = this.limitOf(policy);
    const now = this.#clock();
    const windowMs = w * 1000;
    const index = Math.floor(now / windowMs);
    const elapsed = (now - index * windowMs) / windowMs;
    const state = await this.#state(policy, subject, index);
    let previousWeighted = (state.previous ?? 0) * (1 - elapsed);
    let current = state.shared + state.pending;
    let estimate = previousWeighted + current;
    if (performance.now() - state.refreshedAt > this.#flushIntervalMs) {
      // Other instances may have flushed since we last looked: re-read. Far from the limit the
      // stale view is good enough to decide this request (waiting on KV here would stall the
      // hot path behind fsyncs); approaching the limit, wait for the fresh count.
      state.refreshing ??= this.#refresh(state, keys.rateLimitWindow(policy, subject, index));
      if (limit - estimate <= 2 * this.#exactMargin) {
        await state.refreshing;
        previousWeighted = (state.previous ?? 0) * (1 - elapsed);
        current = state.shared + state.pending;
        estimate = previousWeighted + current;
      }
    }

    let allowed: boolean;
    if (limit - estimate > this.#exactMargin) {
      state.pending++;
      current++;
      allowed = true;
      this.#scheduleFlush();
    } else {
      // Near the limit: decide with the KV's own count, one serialized commit at a time.
      const exact = await this.#exactHit(policy, subject, index, limit, previousWeighted, w)
        .catch((err) => {
          logEvent("warn", "rate-limit commit failed", { cause: (err as Error).message });
          return { allowed: true, count: state.shared + 1 }; // fail open, as in #state
        });
      state.shared = exact.count;
      current = state.shared + state.pending;
      allowed = exact.allowed;
    }
    const used = previousWeighted + current;
    const resetSeconds = Math.max(1, Math.ceil(((index + 1) * windowMs - now) / 1000));
    return {
      policy,
      limit,
      window: w,
      allowed,
      remaining: Math.max(0, Math.floor(limit - used)),
      resetSeconds,
      retryAfterSeconds: allowed
        ? 0
        : this.#retryAfter(now, index, w, limit, state.previous ?? 0, current),
    };
  }

  /**
   * Seconds until `previous·(1−f) + current + 1 ≤ limit` holds: either later in this window as
   * the previous window's weight decays, or in the next one once `current` becomes the previous.
   */
  #retryAfter(
    now: number,
    index: number,
    w: number,
    limit: number,
    previous: number,
    current: number,
  ): number {
    const windowMs = w * 1000;
    const windowEnd = (index + 1) * windowMs;
    if (current + 1 <= limit && previous > 0) {
      const f = 1 - (limit - 1 - current) / previous;
      const at = index * windowMs + Math.max(0, Math.min(1, f)) * windowMs;
      return Math.max(1, Math.ceil((at - now) / 1000));
    }
    const f = current > 0 ? 1 - (limit - 1) / current : 0;
    const at = windowEnd + Math.max(0, Math.min(1, f)) * windowMs;
    return Math.max(1, Math.ceil((at - now) / 1000));
  }

  async #state(policy: string, subject: string, index: number): Promise<WindowState> {
    const id = `${policy}\0${subject}\0${index}`;
    let state = this.#windows.get(id);
    if (!state) {
      let shared = 0, previous = 0;
      try {
        const [cur, prev] = await this.#kv.getMany<[Deno.KvU64, Deno.KvU64]>([
          keys.rateLimitWindow(policy, subject, index),
          keys.rateLimitWindow(policy, subject, index - 1),
        ]);
        shared = Number(cur.value?.value ?? 0n);
        previous = Number(prev.value?.value ?? 0n);
      } catch (err) {
        // Storage unreachable: count from zero here (fail open) rather than refuse every request;
        // the health check reports the outage.
        logEvent("warn", "rate-limit read failed", { cause: (err as Error).message });
      }
      state = this.#windows.get(id) ??
        { shared, pending: 0, previous, refreshedAt: performance.now(), refreshing: null };
      this.#windows.set(id, state);
    }
    return state;
  }

  async #refresh(state: WindowState, key: Deno.KvKey): Promise<void> {
    try {
      const entry = await this.#kv.get<Deno.KvU64>(key);
      // A read issued before a flush landed may return after it: the count only grows, so keep
      // the larger (a stale read would otherwise hand back quota already spent).
      state.shared = Math.max(state.shared, Number(entry.value?.value ?? 0n));
    } catch (err) {
      logEvent("warn", "rate-limit read failed", { cause: (err as Error).message });
    } finally {
      state.refreshedAt = performance.now();
      state.refreshing = null;
    }
  }

  async #exactHit(
    policy: string,
    subject: string,
    index: number,
    limit: number,
    previousWeighted: number,
    w: number,
  ): Promise<{ allowed: boolean; count: number }> {
    await this.flush().catch(() => {});
    const key = keys.rateLimitWindow(policy, subject, index);
    const member = memberOfWindow(`${policy}\0${subject}\0${index}`);
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        // As in flush: never re-create a counter naming a member whose account is gone.
        const [entry, account] = await this.#kv.getMany<[Deno.KvU64, unknown]>([
          key,
          member === null ? key : keys.member(member),
        ]);
        const count = Number(entry.value?.value ?? 0n);
        if (previousWeighted + count + 1 > limit) return { allowed: false, count };
        if (account.versionstamp === null && member !== null) return { allowed: true, count };
        const res = await commitKv(() =>
          this.#kv.atomic().check(entry).check(account)
            .set(key, new Deno.KvU64(BigInt(count + 1)), { expireIn: 2 * w * 1000 })
        );
        if (res.ok) return { allowed: true, count: count + 1 };
      } catch (err) {
        // Several processes on one SQLite file contend for its write lock; that is a conflict
        // to retry, not an outage.
        if (!isTransientKvError(err) && (err as { code?: string }).code !== "service_busy") {
          throw err;
        }
      }
      await new Promise((r) => setTimeout(r, Math.random() * (1 + attempt)));
    }
    // Pathological contention: refuse rather than overshoot the quota.
    return { allowed: false, count: limit };
  }

  #scheduleFlush(): void {
    if (this.#flushTimer !== undefined || this.#closed) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.flush().catch((err) => logError("rate-limit flush failed", err));
    }, this.#flushIntervalMs);
  }

  /** Commits every pending increment in one atomic operation and refreshes the shared counts. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    const batch: { id: string; key: Deno.KvKey; n: number; w: number; state: WindowState }[] = [];
    const currentIndexOf = new Map<number, number>();
    for (const [id, state] of this.#windows) {
      const [policy, subject, indexText] = id.split("\0");
      const index = Number(indexText);
      const w = RATE_LIMIT_POLICIES[policy as PolicyName].w;
      let current = currentIndexOf.get(w);
      if (current === undefined) {
        current = Math.floor(this.#clock() / (w * 1000));
        currentIndexOf.set(w, current);
      }
      if (state.pending > 0) {
        batch.push({
          id,
          key: keys.rateLimitWindow(policy, subject, index),
          n: state.pending,
          w,
          state,
        });
      } else if (index < current) {
        this.#windows.delete(id); // the window has ended and nothing is owed to KV
      }
    }
    if (batch.length === 0) return;
    this.#flushing = (async () => {
      await this.#sweepEndedWindows();
      // Deno KV allows at most 1000 mutations per atomic operation; 500 leaves room.
      for (let i = 0; i < batch.length; i += 500) {
        const chunk = batch.slice(i, i + 500);
        await withKvRetry(async () => {
          const op = this.#kv.atomic();
          const live = await this.#checkMembers(op, chunk.map((item) => item.id));
          for (const item of chunk) if (live(item.id)) op.sum(item.key, BigInt(item.n));
          return (await op.commit()).ok ? true : RETRY;
        });
        // The committed increments move from pending to shared together, so no request in
        // between sees them in neither (the estimate would dip and `remaining` rise).
        for (const item of chunk) {
          item.state.pending -= item.n;
          item.state.shared += item.n;
        }
        // Read back the global totals, which include other instances' flushed increments.
        for (let j = 0; j < chunk.length; j += 10) {
          const part = chunk.slice(j, j + 10);
          const entries = await this.#kv.getMany<Deno.KvU64[]>(part.map((p) => p.key));
          const now = performance.now();
          entries.forEach((e, k) => {
            // A window's count only grows: a read that raced a newer one never lowers it.
            part[k].state.shared = Math.max(part[k].state.shared, Number(e.value?.value ?? 0n));
            part[k].state.refreshedAt = now;
          });
        }
      }
    })();
    try {
      await this.#flushing;
    } finally {
      this.#flushing = null;
    }
  }

  /**
   * Adds to `op` a check on the account of every member-keyed window among `ids` and returns which
   * windows may be counted: a count flushed after the member's account was deleted must not
   * re-create a counter that names them (lib/accounts/account_changes.ts `deleteAccount`). A
   * deletion racing with the flush fails the check, and the retry then skips the member.
   */
  async #checkMembers(op: Deno.AtomicOperation, ids: string[]): Promise<(id: string) => boolean> {
    const members = [...new Set(ids.map(memberOfWindow).filter((m) => m !== null))];
    const gone = new Set<string>();
    for (let i = 0; i < members.length; i += 10) {
      const part = members.slice(i, i + 10);
      const entries = await this.#kv.getMany(part.map((m) => keys.member(m)));
      entries.forEach((e, j) => {
        if (e.versionstamp === null) gone.add(part[j]);
        else op.check(e);
      });
    }
    return (id) => !gone.has(memberOfWindow(id) ?? "");
  }

  /**
   * Deletes counters of windows that can no longer matter (older than the previous window).
   * `sum` mutations cannot carry `expireIn`, so counters are swept here, at most every 5 minutes.
   */
  async #sweepEndedWindows(): Promise<void> {
    const now = this.#clock();
    if (now - this.#lastSweep < 300_000) return;
    this.#lastSweep = now;
    const stale: Deno.KvKey[] = [];
    for await (const entry of this.#kv.list({ prefix: keys.rateLimitPrefix() })) {
      const [, policy, , index] = entry.key as [string, string, string, number];
      const w = RATE_LIMIT_POLICIES[policy as PolicyName]?.w ?? 60;
      if (index < Math.floor(now / (w * 1000)) - 1) stale.push(entry.key);
    }
    for (let i = 0; i < stale.length; i += 500) {
      const part = stale.slice(i, i + 500);
      await commitKv(() => {
        const op = this.#kv.atomic();
        for (const key of part) op.delete(key);
        return op;
      });
    }
  }

  /** Flushes what is pending and stops the timer (call before closing the KV). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    try {
      await this.flush();
    } catch (err) {
      logEvent("warn", "rate-limit flush on close failed", { cause: (err as Error).message });
    }
  }
}
