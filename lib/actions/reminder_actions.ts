/**
 * The reminder actions of `/api/proxy` (issue #24): the member's reminder times, their browsers'
 * push subscriptions and the test reminder. The Settings page runs the very same actions
 * (`runPageAction`), so a page spends the quota its REST twin spends.
 */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import {
  getReminders,
  REMINDER_CHANNELS,
  ReminderSettings,
  saveReminders,
  type StoredReminders,
} from "../notify/reminders.ts";
import {
  addSubscription,
  assertPushEndpoint,
  listSubscriptions,
  PushSubscriptionInput,
  removeSubscription,
  subscriptionIdOf,
} from "../notify/subscriptions.ts";
import { ensureVapidKeys } from "../notify/vapid.ts";
import { deliverReminder } from "../notify/reminder_poll.ts";
import { TEST_REMINDER } from "../notify/reminder_message.ts";
import { action, type ActionContext } from "./action_table.ts";

/** The reminders as the API answers them. */
const RemindersView = z.object({
  reminders: z.array(z.object({ at: z.string(), column: z.string().nullable() }).strict()),
  streakNudgeAt: z.string().nullable(),
  channel: z.enum(REMINDER_CHANNELS),
  nextDueAt: z.iso.datetime().nullable().meta({ description: "When the next reminder is due." }),
  devices: z.int().min(0).meta({ description: "Browsers subscribed to push reminders." }),
  vapidPublicKey: z.string().meta({
    description: "The applicationServerKey a browser subscribes with (RFC 8292, base64url).",
  }),
}).strict();

async function remindersView(ctx: ActionContext, memberId: string, stored?: StoredReminders) {
  const [settings, devices, vapid] = await Promise.all([
    stored ?? getReminders(ctx.kv, memberId),
    listSubscriptions(ctx.kv, memberId),
    ensureVapidKeys(ctx.kv, ctx.clock()),
  ]);
  return {
    reminders: settings.reminders,
    streakNudgeAt: settings.streakNudgeAt,
    channel: settings.channel,
    nextDueAt: settings.nextDueAt === null ? null : new Date(settings.nextDueAt).toISOString(),
    devices: devices.length,
    vapidPublicKey: vapid.publicKey,
  };
}

/** The reminder actions, spread into `PROXY_ACTIONS`. */
export const REMINDER_ACTIONS = {
  getReminders: action({
    credential: "member",
    writes: false,
    output: RemindersView,
    input: z.object({}).strict(),
    run: (ctx, _input, caller) => remindersView(ctx, caller.memberId),
  }),
  setReminders: action({
    errors: ["unknown_column"],
    credential: "member",
    writes: true,
    output: RemindersView,
    // Replaces every reminder: the times are HH:MM in the member's time zone.
    input: ReminderSettings,
    run: async (ctx, settings, { memberId }) => {
      const stored = await saveReminders(ctx.kv, { memberId, settings, now: ctx.clock() });
      return await remindersView(ctx, memberId, stored);
    },
  }),
  addPushSubscription: action({
    credential: "member",
    writes: true,
    output: z.object({ subscriptionId: z.string(), devices: z.int().min(1) }).strict(),
    // What the browser's `PushSubscription.toJSON()` gives, under `subscription`.
    input: z.object({ subscription: PushSubscriptionInput }).strict(),
    run: async (ctx, { subscription }, { memberId }) => {
      assertPushEndpoint(subscription.endpoint, ctx.pushAllowLoopbackHttp === true);
      return await addSubscription(ctx.kv, memberId, subscription, ctx.clock());
    },
  }),
  removePushSubscription: action({
    errors: ["not_found"],
    credential: "member",
    writes: true,
    output: z.object({ removed: z.literal(true) }).strict(),
    input: z.object({ endpoint: z.string().min(1).max(2000) }).strict(),
    run: async (ctx, { endpoint }, { memberId }) => {
      if (!(await removeSubscription(ctx.kv, memberId, subscriptionIdOf(endpoint)))) {
        throw new AppError("not_found", "No device of yours has that push endpoint.");
      }
      return { removed: true as const };
    },
  }),
  sendTestReminder: action({
    credential: "member",
    writes: true,
    output: z.object({
      sent: z.int().min(0),
      dropped: z.int().min(0).meta({ description: "Devices the push service no longer knows." }),
      failed: z.int().min(0),
      emailed: z.int().min(0).max(1).meta({
        description: "1 when the reminder also went to the verified address (channel email/both).",
      }),
    }).strict(),
    input: z.object({}).strict(),
    // At once, not through the poll: the member is looking at the device.
    run: async (ctx, _input, { memberId }) => {
      const { channel } = await getReminders(ctx.kv, memberId);
      return await deliverReminder(
        {
          kv: ctx.kv,
          clock: ctx.clock,
          pushContact: ctx.pushContact ?? "mailto:admin@localhost",
          mailer: ctx.mailer,
          baseUrl: ctx.baseUrl,
        },
        memberId,
        TEST_REMINDER,
        channel,
      );
    },
  }),
} as const;
