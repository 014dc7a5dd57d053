/**
 * The coach's poll (DESIGN §15, issue #21). Record writes mark a member due in the due-time index
 * `coach_due_at` (lib/record/coach_schedule.ts); a poll — one instance at a time, under a lease —
 * reads the index from the front up to now (lib/foundation/due_index.ts), so its cost follows what
 * is due, not how many members are active. Each due member gets a run; its key is deleted once the
 * run is done, in the same commit that sets the member's next daily key (03:00 UTC tomorrow) while
 * the member is active (`coach_due` present: a write in the last 31 days). A run for a record
 * version already analysed today is a no-op, so the daily key re-analyses only on a new day.
 *
 * No queue anywhere: KV Connect and the new Deno Deploy have none, and one mechanism on every KV
 * is one to test. Writes are debounced by minutes (COACH_DEBOUNCE_MINUTES), so a poll every
 * COACH_POLL_SECONDS adds little delay even where a local queue could deliver to the millisecond.
 * On Deno Deploy `Deno.cron` drives the poll (isolates there are not kept running between
 * requests); elsewhere a timer in every instance does, and the lease lets one of them poll.
 */

import type { Clock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import {
  type DueItem,
  markDue,
  nextDailyAt,
  pollDue,
  type PollReport,
  unmarkDue,
} from "../foundation/due_index.ts";

export { nextDailyAt };
import { COACH_INDEX, type CoachDue } from "../record/coach_schedule.ts";
import { runCoach, type RunOutcome } from "./run.ts";
import { logEvent } from "../foundation/log.ts";
import { DEFAULT_COACH_POLL_SECONDS } from "../foundation/config.ts";
import { metrics } from "../foundation/metrics.ts";

/** Due keys per page: one list round trip, then one `getMany` per 10 (KV Connect's limit). */
const PAGE = 50;
/** `getMany` takes at most 10 keys (Deno KV and denokv limit). */
const GET_MANY = 10;
/** The poll lease; renewed before every page, so a long poll keeps it. */
const LEASE_MS = 60_000;

/** What the worker needs. */
export interface WorkerOptions {
  kv: Deno.Kv;
  clock: Clock;
  /** Called after each run with its outcome (logs, tests). */
  onOutcome?: (memberId: string, outcome: RunOutcome) => void;
  /** How often the timer polls (default 30 s). */
  pollMs?: number;
  /** Stops the timer. */
  signal?: AbortSignal;
  /** This instance's name in the lease and run claims (default a fresh UUID). */
  owner?: string;
}

/** The members' `coach_due` entries, 10 keys per `getMany`, all pages at once. */
async function dueEntries(kv: Deno.Kv, items: DueItem[]): Promise<Deno.KvEntryMaybe<CoachDue>[]> {
  const chunks: DueItem[][] = [];
  for (let i = 0; i < items.length; i += GET_MANY) chunks.push(items.slice(i, i + GET_MANY));
  const read = await Promise.all(
    chunks.map((c) => kv.getMany<CoachDue[]>(c.map((item) => keys.coachDue(item.id)))),
  );
  return read.flat();
}

/** Runs one due member and, unless busy, deletes its key and sets its next daily key. */
async function runDue(
  options: WorkerOptions,
  owner: string,
  item: DueItem,
  due: Deno.KvEntryMaybe<CoachDue>,
): Promise<void> {
  let outcome: RunOutcome;
  try {
    outcome = await runCoach({ kv: options.kv, clock: options.clock, owner }, item.id);
  } catch (err) {
    // the key stays: the next poll retries the run
    metrics.coachRun("failed");
    logEvent("warn", "coach: run failed", { cause: (err as Error).message });
    return;
  }
  metrics.coachRun(outcome.status);
  options.onOutcome?.(item.id, outcome);
  if (outcome.status === "busy") return; // another run holds the member: look again next poll
  const op = unmarkDue(options.kv.atomic(), COACH_INDEX, item);
  // checked against `coach_due` as read: a write meanwhile set its own due key, and a member
  // gone quiet for 31 days (or deleted) gets no further daily run
  if (due.value && outcome.status !== "no_member") {
    markDue(op.check(due), COACH_INDEX, item.id, nextDailyAt(options.clock()));
  }
  if (!(await op.commit()).ok) await unmarkDue(options.kv.atomic(), COACH_INDEX, item).commit();
}

/** Handles one page of due keys: stale ones are deleted, the rest run one after the other. */
async function handlePage(options: WorkerOptions, owner: string, items: DueItem[]) {
  const dues = await dueEntries(options.kv, items);
  const stale = options.kv.atomic();
  let staleCount = 0;
  for (const [i, item] of items.entries()) {
    const due = dues[i];
    // moved by a later write (that write set its own key) or expired: nothing to run for this key
    if (!due.value || due.value.dueAt > item.dueAt) {
      unmarkDue(stale, COACH_INDEX, item);
      staleCount++;
      continue;
    }
    await runDue(options, owner, item, due);
  }
  if (staleCount > 0) await stale.commit();
}

/**
 * One poll of the coach's due-time index: if this instance gets the lease, every member due now is
 * run. Returns what it did (`leased: false` when another instance is polling).
 */
export function coachPoll(options: WorkerOptions): Promise<PollReport> {
  const owner = options.owner ?? crypto.randomUUID();
  return pollDue(options.kv, COACH_INDEX, {
    owner,
    clock: options.clock,
    batch: PAGE,
    leaseMs: LEASE_MS,
    handle: (items) => handlePage(options, owner, items),
  });
}

/** Waits `ms`, or less if `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/**
 * Polls every `pollMs` until `signal` aborts or the KV closes (a closed KV ends the loop). Every
 * instance runs it; the lease lets one poll at a time.
 */
export async function startCoachWorker(options: WorkerOptions): Promise<void> {
  const owned = { ...options, owner: options.owner ?? crypto.randomUUID() };
  workerState = "running";
  try {
    while (!options.signal?.aborted) {
      try {
        await coachPoll(owned);
      } catch (err) {
        if (options.signal?.aborted || isClosed(err)) break;
        logEvent("warn", "coach: poll failed", { cause: (err as Error).message });
      }
      await pause(options.pollMs ?? DEFAULT_COACH_POLL_SECONDS * 1000, options.signal);
    }
  } finally {
    workerState = "stopped";
  }
}

/** Whether `err` says the KV handle was closed (the process is shutting down). */
function isClosed(err: unknown): boolean {
  return err instanceof Error && /closed/i.test(err.message);
}

/**
 * On Deno Deploy, registers the poll with `Deno.cron` (supported on the new Deploy; its isolates
 * are not kept running, so a timer there would not fire) and returns true. Elsewhere, or where the
 * runtime has no `Deno.cron`, returns false and the caller starts the timer. Cron runs at most
 * once a minute: `pollMs` is rounded up to whole minutes (at most hourly).
 */
export function registerCoachCron(
  env: { deploymentId: string | undefined; pollMs: number },
  poll: () => Promise<unknown>,
): boolean {
  const cron = (Deno as unknown as { cron?: DenoCron }).cron;
  if (!env.deploymentId || typeof cron !== "function") return false;
  const minutes = Math.min(60, Math.max(1, Math.ceil(env.pollMs / 60_000)));
  const schedule = minutes >= 60 ? "0 * * * *" : `*/${minutes} * * * *`;
  cron("coach poll", schedule, async () => {
    try {
      await poll();
    } catch (err) {
      logEvent("warn", "coach: poll failed", { cause: (err as Error).message });
    }
  });
  workerState = "running";
  return true;
}

/** `Deno.cron`'s shape (an unstable API outside Deploy; looked up at run time). */
type DenoCron = (name: string, schedule: string, handler: () => Promise<void>) => Promise<void>;

let workerState: "not_started" | "running" | "stopped" = "not_started";

/**
 * Whether this process's coach poll runs (timer or cron): the health check reports it to the
 * operator (issue #14). `stopped` means the timer ended, e.g. its KV closed.
 */
export function coachWorkerState(): "not_started" | "running" | "stopped" {
  return workerState;
}
