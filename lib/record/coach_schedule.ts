/**
 * How a record write schedules the coach (DESIGN §15): in the write's own `kv.atomic()` it sets
 * the member's `coach_due` (the run is due `debounceMs` after this write; a later write moves it)
 * and the due-time index key `coach_due_at` at that time — so a write costs no extra commit and
 * the coach never runs on the request path. No job is enqueued: KV Connect refuses an atomic with
 * an enqueue ("Enqueue operations are not supported in KV Connect") and the new Deno Deploy has
 * no queues (issue #21), so the coach polls the index on every KV (lib/coach/worker.ts). A write
 * that moves the due time leaves the earlier index key behind (it reads nothing to find it); the
 * poll finds `coach_due` moved past that key and deletes it without a run.
 */

import { DEFAULT_COACH_DEBOUNCE_MINUTES } from "../foundation/config.ts";
import { keys } from "../foundation/kv_keys.ts";
import { type DueIndexKeys, markDue } from "../foundation/due_index.ts";

/** `coach_due`: when the member's debounced run is due (ms). */
export interface CoachDue {
  dueAt: number;
}

/** `coach_due` lives this long after the last write: its presence marks a member active. */
export const ACTIVE_MS = 31 * 86_400_000;

/** Default debounce when the caller's context names none. */
export const DEFAULT_DEBOUNCE_MS = DEFAULT_COACH_DEBOUNCE_MINUTES * 60_000;

/** The coach's due-time index (lib/foundation/due_index.ts). */
export const COACH_INDEX: DueIndexKeys = {
  all: keys.coachDueAtAll,
  at: keys.coachDueAt,
  byId: keys.coachDueOfMember,
  lease: keys.coachPollLease,
};

/** Adds the coach schedule to a record write's atomic operation. */
export function scheduleCoach(
  op: Deno.AtomicOperation,
  memberId: string,
  options: { now: number; debounceMs: number },
): Deno.AtomicOperation {
  const dueAt = options.now + options.debounceMs;
  op.set(keys.coachDue(memberId), { dueAt } satisfies CoachDue, { expireIn: ACTIVE_MS });
  return markDue(op, COACH_INDEX, memberId, dueAt);
}
