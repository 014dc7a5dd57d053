/**
 * Sliding-window rate limiting with counters in Deno KV, shared by every instance on one KV
 * (DESIGN §6). HTTP-free: `lib/http/kernel/rate_limit.ts` turns an outcome into headers.
 *
 * Why not one KV commit per request: a local-SQLite KV commit waits on an fsync (~0.5–0.9 ms) and
 * commits do not batch by themselves, so a commit per request caps the server near 1k req/s
 * (reference/perf-anchors.md). Instead each instance keeps hot state in memory and:
 *
 * - far from the limit, counts locally and flushes the pending increments as `sum` mutations every
 *   `flushIntervalMs`, in commits of at most 500 counters and 10 members (each member's account is
 *   checked, and the self-hosted `denokv` allows 10 checks per atomic: `commitsOf`), then reads
 *   back the global totals of those within `4 × exactMargin` of their limit (the others are
 *   re-read when next used and stale). A flush of M members is ⌈M / 10⌉ commits: one for the
 *   usual few, about 100 for 1,000 (issue #19, measured 0.6–1.0 s on a shared 2-core machine);
 * - spends at most 1/`VIEW_SHARE` of the headroom one view of the shared count shows (the quota
 *   left above `exactMargin`) before it flushes its own counts and reads again, so instances
 *   receiving a burst at the same moment cannot each spend the whole headroom on one view;
 * - its memory and its flushes cost what the traffic costs, not what the number of subjects does
 *   (issue #13: 40,000 client addresses once stalled the server): a flush walks only the states
 *   counted since the last one, idle states are evicted in second-chance order (about least
 *   recently used first) under a hard cap (`maxStates`), reads are batched ten keys to a
 *   `getMany`, issued concurrently, and the first request of a subject this instance has not seen
 *   is counted at once, far from the limit, with no read at all (rate_limit_states.ts);
 * - near the limit (less than `exactMargin` left by its estimate), serializes: reads the global
 *   counter and increments it with a versionstamp check, so the last requests of a quota are
 *   decided exactly even when several instances share the KV.
 *
 * The bound of batching, per instance and window: beyond the quota, at most one share of a stale
 * view (⌊(q − exactMargin) / VIEW_SHARE⌋, 12 for a quota of 120) spent before its next read shows
 * the others' counts, plus the first request of a subject it has never seen (or has evicted),
 * counted without a read. With I instances a quota q may so let through q + I × (that share + 1)
 * at worst, and only if up to VIEW_SHARE of them spend on it at once; measured, 1,000 requests at
 * once over four instances were allowed 120–124 times against 120 (rate_limit_test.ts), and
 * 480 over four real processes likewise (tests/multiprocess/quota_test.ts). Paced traffic is
 * exact: an exact commit sees every count flushed before it.
 *
 * Housekeeping stays off the hot path (issue #21 item 8): `sum` cannot carry `expireIn`, so ended
 * windows' counters are deleted by a sweep that runs beside the flushes, never inside one, by one
 * instance at a time (a lease), page by page from `rate_limit_sweep` — an index ordered by when a
 * counter may go, written in the commit that first writes the counter — so it reads what ended,
 * not every counter (it listed all of them inside a flush every 5 minutes per instance: 500
 * sequential pages for 50,000 addresses, with no counts published meanwhile). The flush interval
 * is `RATE_LIMIT_FLUSH_MS` (lib/foundation/config.ts: 10 ms on a KV file, 50 ms on a remote KV).
 *
 * A flush never wedges (issue #19): a commit KV refuses is split in halves so the rest commit, and
 * a counter whose commit keeps failing (or KV busy for every retry, kv_commit.ts) is given up
 * after `FLUSH_ATTEMPTS` flushes, failing open like a failed read. Such lost counts are outside
 * the bound above; they are counted in /metrics (`routine_tracker_rate_limit_counts_dropped_total`)
 * and the failing streak is logged once.
 *
 * The estimate is the classic two-window approximation of a sliding window:
 * `previous × (1 − elapsed/w) + current`.
 */

import type { Clock } from "../foundation/clock.ts";
import {
  keys,
  rateLimitCounterId,
  rateLimitCounterOf,
  rateLimitSweepAt,
} from "../foundation/kv_keys.ts";
import { type DueIndexKeys, type DueItem, pollDue } from "../foundation/due_index.ts";
import { commitKv, isTransientKvError, RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { AppError } from "../foundation/errors.ts";
import { logEvent } from "../foundation/log.ts";
import { isKvDeadline, isOutcomeUnknown } from "../foundation/kv_deadline.ts";
import { metrics } from "../foundation/metrics.ts";
import { BatchedReads, windowKey, type WindowState, WindowStates } from "./rate_limit_states.ts";

/** What a policy's subject is. */
export type PolicySubject =
  | "member"
  | "client IP"
  | "member (IP for healthCheck)"
  | "username"
  | "e-mail address";

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
  // Open registration (RFC 7591 §3) stores a client per request; RFC 7591 §5 lets the server
  // limit it. A valid registration spends this too (issue #19 item 5: 60 a minute filled disks).
  "oauth-register": {
    name: "oauth-register",
    q: 10,
    w: 3600,
    keyedBy: "client IP",
    governs: "valid registrations on POST /api/oauth/register",
  },
  public: {
    name: "public",
    q: 600,
    w: 60,
    keyedBy: "client IP",
    governs: "discovery documents, docs, pages, static files",
  },
  // Issue #19: 200 guesses at one account from 200 addresses were all evaluated. Counted per
  // username whether or not it exists, so a refusal tells nothing (OWASP Authentication Cheat
  // Sheet, "Account Lockout"; NIST SP 800-63B §5.2.2 allows at most 100 failures).
  password: {
    name: "password",
    q: 20,
    w: 3600,
    keyedBy: "username",
    governs: "wrong passwords per username: sign-in (API, pages, OAuth) and password change",
  },
  // Issue #24: a reset link is mail the service sends to someone else's inbox on request. Counted
  // per address whether or not an account has it, so a refusal tells nothing (OWASP Forgot
  // Password Cheat Sheet: same answer, rate-limit the form); a few an hour is all a person needs,
  // and no one can make the service flood an inbox. The form's own requests count under `auth`.
  "password-reset": {
    name: "password-reset",
    q: 3,
    w: 3600,
    keyedBy: "e-mail address",
    governs: "password-reset requests per e-mail address (/forgot-password, requestPasswordReset)",
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
  /** The window the request was counted in (`release` gives it back there). */
  windowIndex: number;
}

/** Options of a `RateLimiter`. */
export interface RateLimiterOptions {
  /** Multiplies every quota (benchmarks raise it so the limiter counts but never rejects). */
  multiplier?: number;
  /**
   * How often pending increments are committed, and how old a view of a shared count may be
   * before it is read again (`RATE_LIMIT_FLUSH_MS`). `Infinity`: never by a timer and never by
   * age — the caller flushes (tests do, so no real timer races their manual clock).
   */
  flushIntervalMs?: number;
  /** How long after this instance's first count since its last sweep it sweeps ended windows. */
  sweepIntervalMs?: number;
  /** Below this many requests left (by estimate), every request is decided by an exact commit. */
  exactMargin?: number;
  /** Window states kept in memory; past it idle ones are evicted, about least recently used first. */
  maxStates?: number;
}

/** The member a window counts for, or `null` for an address (`ip:…` under member policies). */
function memberOf(policy: string, subject: string): string | null {
  const keyedBy = RATE_LIMIT_POLICIES[policy as PolicyName]?.keyedBy ?? "";
  return keyedBy.startsWith("member") && !subject.startsWith("ip:") ? subject : null;
}

/** Requests left (by estimate) below which every request is an exact commit, unless configured. */
export const DEFAULT_EXACT_MARGIN = 20;

/**
 * One view of the shared count lets an instance spend at most this share of the headroom it
 * shows before it looks again (`RateLimiter.#look`): the number of instances that may spend on
 * one subject at the same moment without passing its exact margin together.
 */
export const VIEW_SHARE = 8;

/**
 * Account checks per flush commit. Each member-keyed counter is committed with a check on its
 * member's account (`#checkMembers`); the self-hosted `denokv` server allows 10 checks per atomic
 * operation (Deno's own SQLite KV 100). One check per member in a commit of 500 counters once
 * wedged the limiter for good at 101 members (issue #19).
 */
export const CHECKS_PER_COMMIT = 10;

/**
 * Counters per flush commit: Deno KV allows 1,000 mutations per atomic operation, and a counter's
 * first commit on an instance also sets its sweep key.
 */
export const COUNTERS_PER_COMMIT = 500;

/** Default flush interval on a local KV file: a commit costs an fsync, well under 1 ms. */
export const DEFAULT_FLUSH_MS = 10;

/**
 * Default sweep interval. The sweep reads only ended windows (`rate_limit_sweep`, ordered by when
 * a counter may go), so its cost is what ended since the last sweep, whatever the interval.
 */
export const DEFAULT_SWEEP_MS = 60_000;

/** Sweep keys per page: one list and one commit deleting each with its counter (1,000 mutations). */
export const SWEEP_PAGE = 500;

/** The sweep's lease lasts this long; it is renewed before every page. */
const SWEEP_LEASE_MS = 60_000;

/** A sweep key outlives its counter's sweep time by this much, in case no sweep ran. */
const SWEEP_KEY_SLACK_MS = 86_400_000;

/**
 * The sweep index as a due-time index (lib/foundation/due_index.ts): its keys order by when a
 * counter may go. No mirror by id: a counter's own key gives its sweep key (account deletion).
 */
const SWEEP_INDEX: DueIndexKeys = {
  all: keys.rateLimitSweepAll,
  at: keys.rateLimitSweep,
  byId: (id, sweepAt) => keys.rateLimitSweep(sweepAt, id),
  lease: keys.rateLimitSweepLease,
};

/** The sweep key of a state's counter. */
function sweepKeyOf(state: WindowState): Deno.KvKey {
  const at = rateLimitSweepAt(state.index, state.w);
  return keys.rateLimitSweep(at, rateLimitCounterId(state.policy, state.subject, state.index));
}

/**
 * Adds the sweep key of `state`'s counter to `op`, unless this instance wrote it already — or the
 * window has rolled: a late flush of the previous window's counts may land just after a sweep
 * deleted both keys, and the counter it re-creates must have a sweep key again (an idempotent set;
 * such flushes are rare, the counts left pending when a window ends).
 */
function indexCounter(op: Deno.AtomicOperation, state: WindowState, now: number): void {
  if (state.indexed && state.index >= Math.floor(now / (state.w * 1000))) return;
  const expireIn = rateLimitSweepAt(state.index, state.w) - now + SWEEP_KEY_SLACK_MS;
  op.set(sweepKeyOf(state), true, { expireIn });
}

/** Whether a window's counter can no longer matter (older than the previous window). */
function ended(state: WindowState, now: number): boolean {
  return now >= rateLimitSweepAt(state.index, state.w);
}

/** What one sweep did. */
export interface SweepReport {
  /** False when another instance held the lease: this sweep read nothing else. */
  leased: boolean;
  /** Counters deleted (with their sweep keys). */
  deleted: number;
}

/**
 * Failed flushes after which a state's pending counts are given up (`#settleFailed`). A flush
 * refused outright fails in milliseconds; one that meets a locked KV retries for 0.7–1.4 s first
 * (kv_commit.ts), so 20 outlast 14–28 s of contention between processes before any count is lost.
 */
export const FLUSH_ATTEMPTS = 20;

/** One state's increments in one flush. */
interface PendingCount {
  state: WindowState;
  n: number;
}

/** Whether a flush's commit gave up because the KV stayed busy (kv_commit.ts `service_busy`). */
function isBusy(err: unknown): boolean {
  return err instanceof AppError && err.code === "service_busy";
}

/**
 * Splits a flush into commits of at most `COUNTERS_PER_COMMIT` counters naming at most
 * `CHECKS_PER_COMMIT` members; a member's counters share one commit (one check). Counters of
 * client addresses need no check and fill the last commit, then commits of their own.
 */
export function commitsOf<T extends { state: { member: string | null } }>(batch: T[]): T[][] {
  const byMember = new Map<string, T[]>();
  const free: T[] = [];
  for (const item of batch) {
    const member = item.state.member;
    if (member === null) free.push(item);
    else if (byMember.has(member)) byMember.get(member)!.push(item);
    else byMember.set(member, [item]);
  }
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let members = 0;
  for (const items of byMember.values()) {
    if (members === CHECKS_PER_COMMIT || chunk.length + items.length > COUNTERS_PER_COMMIT) {
      chunks.push(chunk);
      chunk = [];
      members = 0;
    }
    chunk.push(...items);
    members++;
  }
  for (const item of free) {
    if (chunk.length === COUNTERS_PER_COMMIT) {
      chunks.push(chunk);
      chunk = [];
    }
    chunk.push(item);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** What a limiter holds, for tests and diagnostics. */
export interface RateLimiterStats {
  /** Window states in memory (at most `maxStates` plus those owing increments). */
  states: number;
  /** States with increments not yet committed. */
  dirty: number;
  /** Counters the last flush committed. */
  lastFlushKeys: number;
}

/** Counts requests per (policy, subject) in sliding windows backed by KV. */
export class RateLimiter {
  readonly #kv: Deno.Kv;
  readonly #clock: Clock;
  readonly #multiplier: number;
  readonly #flushIntervalMs: number;
  readonly #sweepIntervalMs: number;
  /** Owner of the sweep lease when this instance holds it. */
  readonly #owner = crypto.randomUUID();
  readonly #exactMargin: number;
  /** Counters with fewer than this many requests left are read back after each flush. */
  readonly #readBackMargin: number;
  readonly #states: WindowStates;
  readonly #reads: BatchedReads;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<unknown> | null = null;
  #sweepTimer: ReturnType<typeof setTimeout> | undefined;
  #sweeping: Promise<unknown> | null = null;
  #closed = false;
  #lastFlushKeys = 0;
  /** Failed flushes since the last that succeeded, and counts given up meanwhile. */
  #failedFlushes = 0;
  #droppedInStreak = 0;

  constructor(kv: Deno.Kv, clock: Clock, options: RateLimiterOptions = {}) {
    this.#kv = kv;
    this.#clock = clock;
    this.#multiplier = options.multiplier ?? 1;
    this.#flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_MS;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_MS;
    this.#exactMargin = options.exactMargin ?? DEFAULT_EXACT_MARGIN;
    this.#readBackMargin = 4 * this.#exactMargin;
    this.#states = new WindowStates(options.maxStates ?? 20_000);
    this.#reads = new BatchedReads(kv);
  }

  /** The effective quota of a policy. */
  limitOf(policy: PolicyName): number {
    return Math.max(1, Math.floor(RATE_LIMIT_POLICIES[policy].q * this.#multiplier));
  }

  stats(): RateLimiterStats {
    return {
      states: this.#states.size,
      dirty: this.#states.dirty.size,
      lastFlushKeys: this.#lastFlushKeys,
    };
  }

  /** Counts one request of `subject` under `policy`, unless it is over the limit. */
  async hit(policy: PolicyName, subject: string): Promise<RateLimitOutcome> {
    const w = RATE_LIMIT_POLICIES[policy].w;
    const limit = this.limitOf(policy);
    const now = this.#clock();
    const windowMs = w * 1000;
    const index = Math.floor(now / windowMs);
    const elapsed = (now - index * windowMs) / windowMs;
    const state = this.#state(policy, subject, index);
    const estimate = () => state.previous * (1 - elapsed) + state.shared + state.pending;
    const headroom = () => limit - estimate() - this.#exactMargin;
    // The share is checked again after every wait, in the same turn as the count that follows:
    // requests that waited on one read must not all pass on the view they waited for.
    let waiting = this.#look(state, headroom) ?? this.#withinShare(state, headroom);
    while (waiting) {
      await waiting;
      waiting = this.#withinShare(state, headroom);
    }
    const previousWeighted = state.previous * (1 - elapsed);
    let allowed = true;
    if (headroom() > 0) {
      state.spentOnView++;
      state.pending++;
      this.#states.dirty.add(state);
      this.#scheduleFlush();
    } else {
      // Near the limit: decide with the KV's own count, one serialized commit at a time.
      const exact = await this.#exactHit(state, limit, previousWeighted)
        .catch((err) => {
          logEvent("warn", "rate-limit commit failed", { cause: (err as Error).message });
          return { allowed: true, count: state.shared + 1 }; // fail open, as on a failed read
        });
      // A count only grows within a window (`release` aside): never hand back what was counted.
      state.shared = Math.max(state.shared, exact.count);
      allowed = exact.allowed;
    }
    const current = state.shared + state.pending;
    const resetSeconds = Math.max(1, Math.ceil(((index + 1) * windowMs - now) / 1000));
    return {
      policy,
      limit,
      window: w,
      allowed,
      remaining: Math.max(0, Math.floor(limit - previousWeighted - current)),
      resetSeconds,
      retryAfterSeconds: allowed
        ? 0
        : this.#retryAfter(now, index, w, limit, state.previous, current),
      windowIndex: index,
    };
  }

  /**
   * Brings this instance's view of the shared count up to date as far as the request needs: a
   * promise to wait for, or nothing (the hot path: no await, no microtask). `headroom` is what the
   * estimate leaves above the exact margin (≤ 0: the request is decided exactly).
   */
  #look(state: WindowState, headroom: () => number): Promise<void> | undefined {
    const near = () => headroom() <= this.#exactMargin;
    if (!state.known) {
      // A subject this instance has not seen (or has evicted): far from the limit its first
      // request counts at once, with no read at all — most new subjects never send a second. The
      // second waits for the shared count (of this window and the previous), as does any near it.
      const first = state.shared + state.pending === 0 && state.refreshing === null;
      if (!first || near()) return this.#reads.refresh(state);
    } else if (performance.now() - state.refreshedAt > this.#flushIntervalMs) {
      // Other instances may have flushed since we last looked: re-read (batched). Far from the
      // limit the stale view decides this request, since waiting on KV here would stall the hot
      // path behind fsyncs; approaching the limit, wait for the fresh count.
      const reading = this.#reads.refresh(state);
      if (near()) return reading;
    }
  }

  /**
   * Other instances spend on their own views at the same time, however fast requests come
   * (tests/multiprocess/quota_test.ts: 480 requests at once over 4 processes were allowed up to
   * 339 times against a quota of 120 while each instance could spend all its headroom on one
   * view). So one view buys at most 1/VIEW_SHARE of the headroom it shows; past that this instance
   * publishes its own counts and looks again. Up to VIEW_SHARE instances spending on one view at
   * once then stay within the headroom, and the last `exactMargin` requests are exact commits.
   */
  #withinShare(state: WindowState, headroom: () => number): Promise<void> | undefined {
    const room = headroom();
    if (room <= 0 || state.spentOnView < Math.max(1, Math.floor(room / VIEW_SHARE))) return;
    return this.#lookAgain(state);
  }

  /** Flushes this instance's counts, then reads the shared count afresh. */
  async #lookAgain(state: WindowState): Promise<void> {
    await this.flush().catch(() => {}); // not committed: still owed; the read below fails open too
    if (state.refreshing) await state.refreshing; // begun before the flush: not a fresh look
    await this.#reads.refresh(state);
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

  /** The state of this window, created unread (counted from zero until its first read). */
  #state(policy: string, subject: string, index: number): WindowState {
    const id = `${policy}\0${subject}\0${index}`;
    const existing = this.#states.touch(id);
    if (existing) return existing;
    // The window before, if still in memory, is a lower bound of `previous` until the first read:
    // a subject that spent its quota is not mistaken for a new one when the window rolls.
    const before = this.#states.peek(`${policy}\0${subject}\0${index - 1}`);
    const state: WindowState = {
      id,
      policy,
      subject,
      index,
      w: RATE_LIMIT_POLICIES[policy as PolicyName].w,
      limit: this.limitOf(policy as PolicyName),
      member: memberOf(policy, subject),
      shared: 0,
      pending: 0,
      committing: 0,
      indexed: false,
      previous: before ? before.shared + before.pending : 0,
      known: false,
      refreshedAt: -Infinity,
      spentOnView: 0,
      refreshing: null,
      recentlyUsed: false,
      failedFlushes: 0,
    };
    this.#states.add(state, this.#clock());
    return state;
  }

  async #exactHit(
    state: WindowState,
    limit: number,
    previousWeighted: number,
  ): Promise<{ allowed: boolean; count: number }> {
    await this.flush().catch(() => {});
    const { member } = state;
    const key = windowKey(state);
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
        const res = await commitKv(() => {
          const op = this.#kv.atomic().check(entry).check(account)
            .set(key, new Deno.KvU64(BigInt(count + 1)), { expireIn: 2 * state.w * 1000 });
          indexCounter(op, state, this.#clock());
          return op;
        });
        if (res.ok) {
          state.indexed = true;
          return { allowed: true, count: count + 1 };
        }
      } catch (err) {
        // A KV past its deadline is an outage, not contention: answer now (issue #21).
        if (isKvDeadline(err)) throw err;
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

  /**
   * Gives back one request `hit` allowed for `subject` (a password that proved right was no
   * failed guess). Counts still pending are flushed first, then the shared counter is decremented
   * by an exact commit, so it is right on every instance; it never goes below zero.
   */
  async release(policy: PolicyName, subject: string, outcome: RateLimitOutcome): Promise<void> {
    if (!outcome.allowed) return;
    await this.flush().catch(() => {}); // not committed: the count stays (errs towards refusing)
    const key = keys.rateLimitWindow(policy, subject, outcome.windowIndex);
    const count = await withKvRetry(async () => {
      const entry = await this.#kv.get<Deno.KvU64>(key);
      const n = Number(entry.value?.value ?? 0n);
      if (n === 0) return 0;
      const op = this.#kv.atomic().check(entry);
      // At zero the counter goes: a right password leaves no trace of the name it was for.
      if (n === 1) op.delete(key);
      else op.set(key, new Deno.KvU64(BigInt(n - 1)), { expireIn: 2 * outcome.window * 1000 });
      return (await op.commit()).ok ? n - 1 : RETRY;
    });
    const state = this.#states.peek(`${policy}\0${subject}\0${outcome.windowIndex}`);
    if (state) state.shared = count;
  }

  #scheduleFlush(): void {
    if (this.#flushTimer !== undefined || this.#closed) return;
    if (!Number.isFinite(this.#flushIntervalMs)) return; // the caller flushes
    this.#scheduleSweep();
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.flush().catch(() => {}); // reported once per failing streak by #reportFlush
    }, this.#flushIntervalMs);
  }

  /**
   * Commits the pending increments of the states that served requests since the last flush (the
   * dirty ones only), in commits of at most 500 counters and 10 members (`commitsOf`), then
   * re-reads those counters in batches. Idle states and ended windows are evicted first; counts
   * of a window that can no longer matter are dropped, not written (the sweep may have deleted
   * its counter, and a counter written after it would never be swept). Rejects
   * with the first error if a commit failed; its states owe their counts to the next flush, or
   * give them up after `FLUSH_ATTEMPTS` (`#settleFailed`), so a failure never wedges the limiter.
   */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    this.#states.evict(this.#clock());
    if (this.#states.dirty.size === 0) return;
    const now = this.#clock();
    const batch: PendingCount[] = [];
    for (const state of this.#states.dirty) {
      if (ended(state, now)) state.pending = 0;
      else batch.push({ state, n: state.pending });
    }
    this.#states.dirty.clear();
    if (batch.length === 0) return;
    this.#flushing = this.#commit(batch);
    let error: unknown;
    try {
      error = await this.#flushing;
    } finally {
      this.#flushing = null;
    }
    if (error !== null) throw error;
  }

  /** Commits `batch` and reads back the counters near their limit; the first error, or null. */
  async #commit(batch: PendingCount[]): Promise<unknown> {
    const failed: PendingCount[] = [];
    let error: unknown = null;
    // While these counts are in flight a read may or may not include them (BatchedReads).
    for (const { state, n } of batch) state.committing += n;
    try {
      const chunks = commitsOf(batch);
      for (let i = 0; i < chunks.length; i++) {
        const err = await this.#commitChunk(chunks[i], failed);
        error ??= err;
        // A busy KV is busy for every chunk: on a SQLite file each attempt holds the KV's one
        // connection up to its 5 s busy timeout, reads queue behind it, and 12 attempts for each
        // of 50 chunks kept a process's reads waiting for most of an hour. The rest wait for the
        // next flush with their counts (`#settleFailed`), as the busy chunk's do.
        if (isBusy(err)) {
          for (const rest of chunks.slice(i + 1)) failed.push(...rest);
          break;
        }
      }
    } finally {
      for (const { state, n } of batch) state.committing -= n;
    }
    this.#settleFailed(failed);
    this.#reportFlush(error, failed);
    this.#lastFlushKeys = batch.length - failed.length;
    // Read back the global totals (other instances' flushed increments) of the counters close
    // enough to their limit for those to matter; the others are re-read, batched, when next used.
    const near = batch.filter(({ state }) =>
      state.limit - (state.previous + state.shared) <= this.#readBackMargin
    );
    await Promise.all(near.map(({ state }) => this.#reads.refresh(state)));
    return error;
  }

  /**
   * Commits one chunk (retrying contention and failed account checks, kv_commit.ts). A chunk that
   * fails otherwise is split in halves and each retried, so one counter KV refuses cannot hold
   * back the others: at most 2 × its size commits. What still fails goes to `failed`.
   */
  async #commitChunk(chunk: PendingCount[], failed: PendingCount[]): Promise<unknown> {
    try {
      await withKvRetry(async () => {
        const op = this.#kv.atomic();
        const live = await this.#checkMembers(op, chunk.map(({ state }) => state.member));
        const now = this.#clock();
        for (const { state, n } of chunk) {
          if (!live(state.member)) continue;
          op.sum(windowKey(state), BigInt(n));
          indexCounter(op, state, now);
        }
        return (await op.commit()).ok ? true : RETRY;
      });
    } catch (err) {
      // A commit past the KV's deadline may still be applied later, once (Deno's client keeps
      // resending it): sending these `sum`s again could count them twice, so they count as
      // flushed; the next read of the counter tells the truth (issue #21).
      if (isOutcomeUnknown(err)) {
        settle(chunk);
        return err;
      }
      if (isBusy(err) || chunk.length === 1) {
        failed.push(...chunk);
        return err;
      }
      const half = Math.ceil(chunk.length / 2);
      const first = await this.#commitChunk(chunk.slice(0, half), failed);
      const second = await this.#commitChunk(chunk.slice(half), failed);
      return first ?? second;
    }
    settle(chunk);
    return null;
  }

  /**
   * States whose commit failed owe their counts to the next flush, for `FLUSH_ATTEMPTS` flushes;
   * then the counts are given up (fail open, as a failed read does) and counted in /metrics
   * (`routine_tracker_rate_limit_counts_dropped_total`), so a counter KV keeps refusing never keeps
   * its state in memory, or every later flush failing, for good (issue #19).
   */
  #settleFailed(failed: PendingCount[]): void {
    for (const { state, n } of failed) {
      state.failedFlushes++;
      if (state.failedFlushes >= FLUSH_ATTEMPTS) {
        state.pending -= n;
        state.failedFlushes = 0;
        metrics.rateLimitCountsDropped(state.policy, n);
        this.#droppedInStreak += n;
      }
      if (state.pending > 0) this.#states.dirty.add(state);
    }
  }

  /**
   * Logs a failing streak of flushes once, when it begins, and once more when a flush succeeds
   * again (with what it cost); every failed flush is counted in /metrics. A flush runs every
   * 10 ms: one line per failure would flood the log (issue #19).
   */
  #reportFlush(error: unknown, failed: PendingCount[]): void {
    if (error !== null) {
      const cause = error instanceof AppError && error.code === "service_busy" ? "busy" : "error";
      metrics.rateLimitFlushFailed(cause);
      if (this.#failedFlushes++ === 0) {
        logEvent("error", "rate-limit flush failed; counts are kept for later flushes", {
          cause: (error as Error).message ?? String(error),
          counters: failed.length,
          attempts: FLUSH_ATTEMPTS,
        });
      }
    } else if (this.#failedFlushes > 0) {
      logEvent("info", "rate-limit flushes recovered", {
        failedFlushes: this.#failedFlushes,
        droppedCounts: this.#droppedInStreak,
      });
      this.#failedFlushes = 0;
      this.#droppedInStreak = 0;
    }
  }

  /**
   * Adds to `op` a check on the account of every member-keyed window among `ids` and returns which
   * windows may be counted: a count flushed after the member's account was deleted must not
   * re-create a counter that names them (lib/accounts/account_changes.ts `deleteAccount`). A
   * deletion racing with the flush fails the check, and the retry then skips the member.
   * `commitsOf` puts at most `CHECKS_PER_COMMIT` members in one commit.
   */
  async #checkMembers(
    op: Deno.AtomicOperation,
    ofStates: (string | null)[],
  ): Promise<(member: string | null) => boolean> {
    const members = [...new Set(ofStates.filter((m) => m !== null))];
    const gone = new Set<string>();
    if (members.length > 0) {
      const entries = await this.#kv.getMany(members.map((m) => keys.member(m)));
      entries.forEach((e, j) => {
        if (e.versionstamp === null) gone.add(members[j]);
        else op.check(e);
      });
    }
    return (member) => member === null || !gone.has(member);
  }

  /**
   * Arms the sweep: `sweepIntervalMs` after this instance's first count since its last sweep. An
   * idle instance does not sweep (a busy one does); the sweep runs beside the flushes, never
   * inside one, so counts are published while it pages (issue #21).
   */
  #scheduleSweep(): void {
    if (this.#sweepTimer !== undefined || this.#sweeping || this.#closed) return;
    this.#sweepTimer = setTimeout(() => {
      this.#sweepTimer = undefined;
      this.#sweeping = this.sweep()
        .catch((err) => {
          logEvent("warn", "rate-limit sweep failed", { cause: (err as Error).message });
        })
        .finally(() => this.#sweeping = null);
    }, this.#sweepIntervalMs);
  }

  /**
   * Deletes the counters of windows that can no longer matter, with their sweep keys: one instance
   * at a time (a lease), reading the sweep index from the front up to now in pages of
   * `SWEEP_PAGE` — one list and one commit per page — so it reads what has ended, never every
   * counter. `sum` mutations cannot carry `expireIn`, which is why counters need a sweep at all.
   */
  sweep(): Promise<SweepReport> {
    return pollDue(this.#kv, SWEEP_INDEX, {
      owner: this.#owner,
      clock: this.#clock,
      batch: SWEEP_PAGE,
      leaseMs: SWEEP_LEASE_MS,
      handle: (items) => this.#deleteSwept(items),
    }).then(({ leased, seen }) => ({ leased, deleted: seen }));
  }

  async #deleteSwept(items: DueItem[]): Promise<void> {
    await commitKv(() => {
      const op = this.#kv.atomic();
      for (const item of items) {
        const counter = rateLimitCounterOf(item.id);
        if (counter) op.delete(counter);
        op.delete(item.key);
      }
      return op;
    });
  }

  /** Flushes what is pending and stops the timer (call before closing the KV). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    if (this.#sweepTimer !== undefined) clearTimeout(this.#sweepTimer);
    this.#flushTimer = undefined;
    this.#sweepTimer = undefined;
    await this.#sweeping;
    try {
      await this.flush();
    } catch (err) {
      logEvent("warn", "rate-limit flush on close failed", { cause: (err as Error).message });
    }
  }
}

/**
 * The committed increments move from pending to shared together, so no request in between sees
 * them in neither (the estimate would dip and `remaining` rise).
 */
function settle(chunk: PendingCount[]): void {
  for (const { state, n } of chunk) {
    state.pending -= n;
    state.shared += n;
    state.failedFlushes = 0;
    state.indexed = true;
  }
}
