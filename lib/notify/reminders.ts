/**
 * A member's reminders (issue #24): wall-clock times in the member's zone, each "if today is not
 * logged" — of the whole day, or of one column — plus an optional streak-at-risk nudge. Saving
 * them sets the next due time in the due-time index (lib/foundation/due_index.ts, as the coach's),
 * in the same commit; the poll (reminder_poll.ts) claims what is due.
 */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { type DueIndexKeys, markDue } from "../foundation/due_index.ts";
import { RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import type { Member } from "../accounts/accounts.ts";
import { nextDueAfter, WALL_TIME } from "./schedule.ts";

/** How a reminder may go out. */
export const REMINDER_CHANNELS = ["push", "email", "both"] as const;

/** Reminders per member: a few a day is a reminder; more is noise. */
export const MAX_REMINDERS = 6;

const WallTime = z.string().regex(WALL_TIME, "a time is HH:MM, 00:00 to 23:59");

/** The settings a member chooses (`setReminders`). */
export const ReminderSettings = z.object({
  reminders: z.array(
    z.object({
      at: WallTime,
      /** A column key: remind only when that column is not logged; null: when nothing is. */
      column: z.string().min(1).max(64).nullable().default(null),
    }).strict(),
  ).max(MAX_REMINDERS, `At most ${MAX_REMINDERS} reminder times: leave one empty.`).default([]),
  /** At this time, a nudge naming each daily streak of 2+ days that ends unless logged today. */
  streakNudgeAt: WallTime.nullable().default(null),
  /**
   * How reminders reach the member (issue #24): Web Push to their devices, e-mail to their
   * verified address (when the service has `SMTP_URL`), or both.
   */
  channel: z.enum(REMINDER_CHANNELS).default("push").meta({
    description: "push (devices), email (the verified address, when SMTP is set up) or both.",
  }),
}).strict();

/** Settings as chosen. */
export type ReminderSettingsValue = z.output<typeof ReminderSettings>;

/** As stored: the settings, and when the next one is due (null: none set). */
export interface StoredReminders extends ReminderSettingsValue {
  nextDueAt: number | null;
  updatedAt: number;
}

/** The reminders' due-time index. */
export const REMINDER_INDEX: DueIndexKeys = {
  all: keys.reminderDueAtAll,
  at: keys.reminderDueAt,
  byId: keys.reminderDueOfMember,
  lease: keys.reminderPollLease,
};

/** No reminders set. */
export const NO_REMINDERS: ReminderSettingsValue = {
  reminders: [],
  streakNudgeAt: null,
  channel: "push",
};

/** Every wall time of the settings (reminders and the nudge), without repeats. */
export function timesOf(settings: ReminderSettingsValue): string[] {
  const all = settings.reminders.map((r) => r.at);
  if (settings.streakNudgeAt) all.push(settings.streakNudgeAt);
  return [...new Set(all)];
}

/** The member's reminders, or none. */
export async function getReminders(kv: Deno.Kv, memberId: string): Promise<StoredReminders> {
  const entry = await kv.get<StoredReminders>(keys.reminders(memberId));
  // saved before e-mail reminders: by push, as they were
  return entry.value
    ? { ...entry.value, channel: entry.value.channel ?? "push" }
    : { ...NO_REMINDERS, nextDueAt: null, updatedAt: 0 };
}

/** Options of `saveReminders`. */
export interface SaveRemindersOptions {
  memberId: string;
  settings: ReminderSettingsValue;
  now: number;
}

/**
 * Stores the member's reminders and their next due time, and moves the due-time index to it, in
 * one commit checked against the member and the settings as read (a concurrent save retries).
 * Throws `unknown_column` for a column the member does not have.
 */
export async function saveReminders(
  kv: Deno.Kv,
  { memberId, settings, now }: SaveRemindersOptions,
): Promise<StoredReminders> {
  // a busy KV and a lost race are both tried again (lib/foundation/kv_commit.ts)
  return await withKvRetry(async () => {
    const [member, columns, current] = await kv.getMany<
      [Member, { key: string }[], StoredReminders]
    >([keys.member(memberId), keys.columns(memberId), keys.reminders(memberId)]);
    if (!member.value) throw new AppError("not_found", "The account no longer exists.");
    const known = new Set((columns.value ?? []).map((c) => c.key));
    const unknown = settings.reminders.find((r) => r.column !== null && !known.has(r.column));
    if (unknown) throw new AppError("unknown_column", `No column has the key "${unknown.column}".`);
    const nextDueAt = nextDueAfter(timesOf(settings), now, member.value.timezone);
    const stored: StoredReminders = { ...settings, nextDueAt, updatedAt: now };
    const op = kv.atomic().check(member, current).set(keys.reminders(memberId), stored);
    moveDue(op, memberId, current.value?.nextDueAt ?? null, nextDueAt);
    return (await op.commit()).ok ? stored : RETRY;
  });
}

/** Adds "due at `next` instead of `previous`" to `op` (either may be null). */
export function moveDue(
  op: Deno.AtomicOperation,
  memberId: string,
  previous: number | null,
  next: number | null,
): Deno.AtomicOperation {
  if (previous !== null && previous !== next) {
    op.delete(keys.reminderDueAt(previous, memberId));
    op.delete(keys.reminderDueOfMember(memberId, previous));
  }
  if (next !== null) markDue(op, REMINDER_INDEX, memberId, next);
  return op;
}
