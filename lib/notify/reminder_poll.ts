/**
 * The reminders' poll (issue #24): the coach's mechanism (lib/coach/worker.ts, issue #21) — a
 * due-time index read from the front up to now under a poll lease, no queue, so it runs the same
 * on a KV file, KV Connect and Deno Deploy. Each due member is CLAIMED before anything is sent: a
 * commit checked against the member's `reminders` as read moves them to their next due time. Only
 * the instance whose commit succeeds sends, so a reminder goes out once even when a lease expires
 * mid-poll and a second instance polls the same keys (Deno KV `AtomicOperation.check`). The price
 * is at-most-once: a crash between the claim and the send loses that one reminder, which beats
 * waking someone twice.
 */

import type { Clock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { type DueItem, pollDue, type PollReport, unmarkDue } from "../foundation/due_index.ts";
import { logEvent } from "../foundation/log.ts";
import { readKv, withKvRetry } from "../foundation/kv_commit.ts";
import type { Member } from "../accounts/accounts.ts";
import { readRecordBase, snapshotAt } from "../record/member_records.ts";
import { type DeliveryReport, type PushPayload, pushToMember } from "./push.ts";
import {
  moveDue,
  type REMINDER_CHANNELS,
  REMINDER_INDEX,
  type StoredReminders,
  timesOf,
} from "./reminders.ts";
import { type Mailer, sendMail } from "./mail.ts";

/** A reminder's way out. */
type ReminderChannel = typeof REMINDER_CHANNELS[number];
import { nextDueAfter, timesAt } from "./schedule.ts";
import { reminderMessage } from "./reminder_message.ts";
import { ensureVapidKeys } from "./vapid.ts";

/** Due keys per page. */
const PAGE = 50;
/** The poll lease, renewed before every page. */
const LEASE_MS = 60_000;
/** A reminder found this late (the service was down) is skipped: 21:00's nudge is no use at 3. */
export const STALE_AFTER_MS = 2 * 3_600_000;

/** What sending reminders needs. */
export interface NotifyContext {
  kv: Deno.Kv;
  clock: Clock;
  /** The VAPID `sub` (config `pushContact`). */
  pushContact: string;
  /** Where e-mail reminders go out (config `SMTP_URL`); null or absent: none are sent. */
  mailer?: Mailer | null;
  /** The public base URL, for the link in an e-mail reminder. */
  baseUrl?: string;
}

/** How a delivery went: the devices (`DeliveryReport`), and whether an e-mail went out. */
export interface ReminderReport extends DeliveryReport {
  emailed: number;
}

/**
 * Sends `payload` by `channel`: to the member's devices, and/or to their verified address when
 * the service has a mailer. A member without a verified address gets no e-mail (push only).
 */
export async function deliverReminder(
  ctx: NotifyContext,
  memberId: string,
  payload: PushPayload,
  channel: ReminderChannel = "push",
): Promise<ReminderReport> {
  const none: DeliveryReport = { sent: 0, dropped: 0, failed: 0 };
  const pushed = channel === "email" ? none : await pushToMember(
    ctx.kv,
    { vapid: await ensureVapidKeys(ctx.kv, ctx.clock()), contact: ctx.pushContact },
    memberId,
    payload,
  );
  const emailed = channel !== "push" && ctx.mailer ? await mailReminder(ctx, memberId, payload) : 0;
  return { ...pushed, emailed };
}

/** Mails `payload` to the member's verified address; 1 when it went out, else 0. */
async function mailReminder(ctx: NotifyContext, memberId: string, payload: PushPayload) {
  const member = await readKv(() => ctx.kv.get<Member>(keys.member(memberId)));
  const to = member.value?.email;
  if (!to) return 0;
  const text = `${payload.body}\n\nLog it: ${ctx.baseUrl ?? ""}${payload.url}\n\n` +
    "You get this because you chose e-mail reminders in Settings → Reminders.\n";
  return await sendMail(ctx.mailer!, { to, subject: payload.title, text }) ? 1 : 0;
}

/** What one due key turned into. */
export type ReminderOutcome = "sent" | "nothing_to_say" | "stale" | "moved" | "claimed_elsewhere";

/** A claimed reminder: the settings as they were, and the member's zone. */
interface Claimed {
  settings: StoredReminders;
  zone: string;
}

/**
 * Claims the reminder of `item`: moves the member to their next due time in a commit checked
 * against the settings as read. Returns what it claimed, or why there is nothing to send. A busy
 * KV ("database is locked") is retried (lib/foundation/kv_commit.ts); a failed check is not: the
 * settings changed, by another instance's claim or by a save that set its own due key.
 */
function claimDue(ctx: NotifyContext, item: DueItem): Promise<Claimed | ReminderOutcome> {
  const { kv } = ctx;
  return withKvRetry(async () => {
    const [entry, member] = await kv.getMany<[StoredReminders, Member]>([
      keys.reminders(item.id),
      keys.member(item.id),
    ]);
    const settings = entry.value;
    if (!settings || !member.value || settings.nextDueAt !== item.dueAt) {
      // saved again meanwhile (that save set its own key), or the member is gone
      await unmarkDue(kv.atomic(), REMINDER_INDEX, item).commit();
      return "moved";
    }
    const zone = member.value.timezone;
    const next = nextDueAfter(timesOf(settings), Math.max(ctx.clock(), item.dueAt), zone);
    const claim = kv.atomic().check(entry)
      .set(entry.key, { ...settings, nextDueAt: next } satisfies StoredReminders);
    if (!(await moveDue(claim, item.id, item.dueAt, next).commit()).ok) {
      logEvent("info", "reminders: claimed by another instance", { dueAt: item.dueAt });
      return "claimed_elsewhere";
    }
    return { settings, zone };
  });
}

/** Claims the reminder of `item` and, if this instance won the claim, sends it. */
export async function handleDue(ctx: NotifyContext, item: DueItem): Promise<ReminderOutcome> {
  const claimed = await claimDue(ctx, item);
  if (typeof claimed === "string") return claimed;
  if (ctx.clock() - item.dueAt > STALE_AFTER_MS) return "stale";
  const { settings, zone } = claimed;
  const base = await readKv(() => readRecordBase(ctx.kv, item.id));
  const times = timesAt(timesOf(settings), item.dueAt, zone);
  const payload = reminderMessage(snapshotAt(base, item.dueAt), settings, times);
  if (!payload) return "nothing_to_say";
  await deliverReminder(ctx, item.id, payload, settings.channel ?? "push");
  return "sent";
}

/** Options of a poll. */
export interface ReminderPollOptions extends NotifyContext {
  /** This instance's name in the lease (default a fresh UUID). */
  owner?: string;
  /** Called with each due key's outcome (logs, tests). */
  onOutcome?: (memberId: string, outcome: ReminderOutcome) => void;
}

/** One poll of the reminders' index: every reminder due now, if this instance gets the lease. */
export function reminderPoll(options: ReminderPollOptions): Promise<PollReport> {
  return pollDue(options.kv, REMINDER_INDEX, {
    owner: options.owner ?? crypto.randomUUID(),
    clock: options.clock,
    batch: PAGE,
    leaseMs: LEASE_MS,
    handle: async (items) => {
      for (const item of items) {
        try {
          // not inside `onOutcome?.(…)`: with no callback its arguments would not be evaluated
          const outcome = await handleDue(options, item);
          options.onOutcome?.(item.id, outcome);
        } catch (err) {
          // the key stays unless claimed: the next poll tries again
          logEvent("warn", "reminders: a reminder failed", { cause: (err as Error).message });
        }
      }
    },
  });
}

/** Polls every `pollMs` until `signal` aborts or the KV closes. */
export async function startReminderWorker(
  options: ReminderPollOptions & { pollMs: number; signal?: AbortSignal },
): Promise<void> {
  const owned = { ...options, owner: options.owner ?? crypto.randomUUID() };
  while (!options.signal?.aborted) {
    try {
      await reminderPoll(owned);
    } catch (err) {
      if (options.signal?.aborted || /closed/i.test((err as Error).message)) break;
      logEvent("warn", "reminders: poll failed", { cause: (err as Error).message });
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.pollMs);
      options.signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }
}
