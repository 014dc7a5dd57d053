/**
 * How a record write schedules the coach (DESIGN §15): in the write's own `kv.atomic()` it sets
 * the member's `coach_due` (the run is due `debounceMs` after this write; a later write moves it)
 * and enqueues a job delivered at that time — so a write costs no extra commit and the coach never
 * runs on the request path. The job carries the due time it was enqueued for; when it arrives and
 * a later write has moved `coach_due`, it is a no-op (that later write's job will run). The queue
 * is Deno KV's own, so jobs survive a restart.
 */

import { DEFAULT_COACH_DEBOUNCE_MINUTES } from "../foundation/config.ts";
import { keys } from "../foundation/kv_keys.ts";

/** `coach_due`: when the member's debounced run is due (ms). */
export interface CoachDue {
  dueAt: number;
}

/** A queued coach job. `daily` jobs skip the debounce check. */
export interface CoachJob {
  kind: "coach";
  memberId: string;
  dueAt: number;
  daily?: boolean;
  /** Times this job found its member held by another run. */
  attempt?: number;
}

/** The daily tick that fans out jobs for recently active members. */
export interface CoachDailyTick {
  kind: "coach_daily";
  at: number;
}

/** `coach_due` lives this long after the last write: its presence marks a member active. */
export const ACTIVE_MS = 31 * 86_400_000;

/** Retries of a job that throws (e.g. another instance holds the member): 1 s … 2 min. */
export const JOB_BACKOFF_MS = [1_000, 5_000, 30_000, 60_000, 120_000];

/** Default debounce when the caller's context names none. */
export const DEFAULT_DEBOUNCE_MS = DEFAULT_COACH_DEBOUNCE_MINUTES * 60_000;

const queueless = new WeakSet<Deno.Kv>();

/**
 * Marks a KV that has no queue: KV Connect (`KV_URL`) carries every KV feature but queues ("the
 * protocol does not include" them — denoland/denokv README, feature matrix). On such a KV a write
 * only sets `coach_due`, and lib/coach/worker.ts polls the due keys instead of listening.
 */
export function markQueueless(kv: Deno.Kv): void {
  queueless.add(kv);
}

/** Whether jobs go through `kv.enqueue` / `kv.listenQueue` on this KV. */
export function hasQueue(kv: Deno.Kv): boolean {
  return !queueless.has(kv);
}

/** Adds the coach schedule to a record write's atomic operation on `kv`. */
export function scheduleCoach(
  op: Deno.AtomicOperation,
  memberId: string,
  options: { kv: Deno.Kv; now: number; debounceMs: number },
): Deno.AtomicOperation {
  const dueAt = options.now + options.debounceMs;
  op.set(keys.coachDue(memberId), { dueAt } satisfies CoachDue, { expireIn: ACTIVE_MS });
  if (!hasQueue(options.kv)) return op;
  const job: CoachJob = { kind: "coach", memberId, dueAt };
  return op.enqueue(job, { delay: options.debounceMs, backoffSchedule: JOB_BACKOFF_MS });
}
