/**
 * The coach's queue consumer, started in every instance (DESIGN §15). Jobs come from Deno KV's
 * own durable queue: debounced ones enqueued by record writes (lib/record/coach_schedule.ts) and
 * a daily tick that fans out a job per member active in the last 31 days. A handler that throws
 * is redelivered by KV with backoff and a job that finds its member busy re-enqueues itself, so a
 * restart or a busy member loses no job; a job for a record version already analysed today is a
 * no-op, so a redelivered job runs at most once.
 */

import type { Clock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import {
  type CoachDailyTick,
  type CoachDue,
  type CoachJob,
  hasQueue,
  JOB_BACKOFF_MS,
} from "../record/coach_schedule.ts";
import { runCoach, type RunOutcome } from "./run.ts";
import { logEvent } from "../foundation/log.ts";
import { metrics } from "../foundation/metrics.ts";

const DAY_MS = 86_400_000;
/** Jobs per atomic commit when the daily tick fans out. */
const FAN_OUT_BATCH = 50;

/** What the worker needs. */
export interface WorkerOptions {
  kv: Deno.Kv;
  clock: Clock;
  /** Called after each job with its outcome (logs, tests). */
  onOutcome?: (memberId: string, outcome: RunOutcome) => void;
  /** Queueless KV only: how often the due keys are polled (default 30 s). */
  pollMs?: number;
  /** Queueless KV only: stops the polling loop. */
  signal?: AbortSignal;
}

/** Default poll interval on a KV without queues. */
const POLL_MS = 30_000;

/** A job that finds its member held by another run looks again after this long… */
const BUSY_RETRY_MS = 5_000;
/** …this many times (a claim lasts at most a minute: lib/coach/run.ts `LEASE_MS`). */
const BUSY_RETRIES = 15;

function isJob(m: unknown): m is CoachJob {
  const j = m as CoachJob;
  return typeof j === "object" && j !== null && j.kind === "coach" &&
    typeof j.memberId === "string" && typeof j.dueAt === "number";
}

function isTick(m: unknown): m is CoachDailyTick {
  const t = m as CoachDailyTick;
  return typeof t === "object" && t !== null && t.kind === "coach_daily" &&
    typeof t.at === "number";
}

async function handleJob(options: WorkerOptions, owner: string, job: CoachJob): Promise<void> {
  if (!job.daily) {
    // a later write moved the due time: its own job will run then
    const due = await options.kv.get<CoachDue>(keys.coachDue(job.memberId));
    if (due.value && due.value.dueAt > job.dueAt) return;
  }
  let outcome: RunOutcome;
  try {
    outcome = await runCoach({ ...options, owner }, job.memberId);
  } catch (err) {
    metrics.coachRun("failed");
    throw err;
  }
  metrics.coachRun(outcome.status);
  options.onOutcome?.(job.memberId, outcome);
  if (outcome.status === "busy" && hasQueue(options.kv) && (job.attempt ?? 0) < BUSY_RETRIES) {
    // another instance holds the member: look again later (durably; this job is acked after)
    const retry: CoachJob = { ...job, attempt: (job.attempt ?? 0) + 1 };
    await options.kv.enqueue(retry, { delay: BUSY_RETRY_MS, backoffSchedule: JOB_BACKOFF_MS });
  }
}

/**
 * The daily tick: exactly one instance moves `coach_daily` to the next day (atomic check) and
 * enqueues the next tick with it, then enqueues a job for each active member.
 */
async function handleTick(options: WorkerOptions, tick: CoachDailyTick): Promise<void> {
  const { kv } = options;
  const entry = await kv.get<number>(keys.coachDaily());
  if (entry.value !== tick.at) return;
  const next = tick.at + DAY_MS;
  const moved = await kv.atomic().check(entry).set(keys.coachDaily(), next)
    .enqueue({ kind: "coach_daily", at: next } satisfies CoachDailyTick, {
      delay: Math.max(0, next - options.clock()),
    }).commit();
  if (!moved.ok) return;
  let op = kv.atomic(), count = 0;
  for await (const due of kv.list<CoachDue>({ prefix: keys.coachDueAll() })) {
    const memberId = due.key[1] as string;
    const job: CoachJob = { kind: "coach", memberId, dueAt: tick.at, daily: true };
    op.enqueue(job, { backoffSchedule: JOB_BACKOFF_MS });
    if (++count % FAN_OUT_BATCH === 0) {
      await op.commit();
      op = kv.atomic();
    }
  }
  if (count % FAN_OUT_BATCH !== 0) await op.commit();
}

/** Makes sure one daily tick is pending (idempotent; every instance calls it at start). */
export async function ensureDailyTick(kv: Deno.Kv, clock: Clock): Promise<void> {
  const entry = await kv.get<number>(keys.coachDaily());
  // a tick more than a day overdue was lost (e.g. the KV was restored): schedule a fresh one
  if (entry.value !== null && entry.value > clock() - DAY_MS) return;
  const at = Math.ceil(clock() / DAY_MS) * DAY_MS + 3 * 3600_000;
  await kv.atomic().check(entry).set(keys.coachDaily(), at)
    .enqueue({ kind: "coach_daily", at } satisfies CoachDailyTick, { delay: at - clock() })
    .commit();
}

/**
 * One pass over the active members on a KV without queues: each whose debounced run is due gets
 * a run now. A run for a version already analysed today is a no-op, so this also is the daily
 * run: on a new day every active member's record is analysed once more.
 */
async function pollDue(options: WorkerOptions, owner: string): Promise<void> {
  const now = options.clock();
  for await (const due of options.kv.list<CoachDue>({ prefix: keys.coachDueAll() })) {
    if (due.value.dueAt > now) continue;
    const job: CoachJob = { kind: "coach", memberId: due.key[1] as string, dueAt: due.value.dueAt };
    await handleJob(options, owner, job);
  }
}

/** Polls until `signal` aborts or the KV closes. */
async function pollLoop(options: WorkerOptions, owner: string): Promise<void> {
  while (!options.signal?.aborted) {
    try {
      await pollDue(options, owner);
    } catch (err) {
      if (options.signal?.aborted) break;
      logEvent("warn", "coach: poll failed", { cause: (err as Error).message });
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.pollMs ?? POLL_MS);
      options.signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }
}

/**
 * Starts consuming the queue on `kv` (one listener per KV handle; resolves when the KV closes).
 * Unknown messages are dropped, so other features may share the queue with their own kinds. On a
 * KV without queues (KV Connect) it polls the due keys instead.
 */
export function startCoachWorker(options: WorkerOptions): Promise<void> {
  const owner = crypto.randomUUID();
  const running = hasQueue(options.kv)
    ? options.kv.listenQueue(async (message: unknown) => {
      if (isJob(message)) await handleJob(options, owner, message);
      else if (isTick(message)) await handleTick(options, message);
    })
    : pollLoop(options, owner);
  if (hasQueue(options.kv)) {
    ensureDailyTick(options.kv, options.clock).catch((err) =>
      logEvent("warn", "coach: could not schedule the daily run", {
        cause: (err as Error).message,
      })
    );
  }
  workerState = "running";
  running.finally(() => workerState = "stopped").catch(() => {});
  return running;
}

let workerState: "not_started" | "running" | "stopped" = "not_started";

/**
 * Whether this process's coach worker consumes its queue (or polls): the health check reports it
 * to the operator (issue #14). `stopped` means the queue listener ended, e.g. its KV closed.
 */
export function coachWorkerState(): "not_started" | "running" | "stopped" {
  return workerState;
}
