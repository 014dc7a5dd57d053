/** What the reminders page shows and reads (issue #24): the form's fields, and times in words. */

import type { DeliveryReport } from "../notify/push.ts";
import { MAX_REMINDERS } from "../notify/reminders.ts";

/** `getReminders` as the page receives it. */
export interface RemindersView {
  reminders: { at: string; column: string | null }[];
  streakNudgeAt: string | null;
  /** push, email or both (issue #24). */
  channel: "push" | "email" | "both";
  nextDueAt: string | null;
  devices: number;
  vapidPublicKey: string;
}

/** The `setReminders` fields of the page's form (`at0`, `column0`, …; an empty time is none). */
export function remindersFromForm(form: Record<string, string>) {
  const reminders: { at: string; column: string | null }[] = [];
  for (let i = 0; i < MAX_REMINDERS + 2; i++) {
    const at = form[`at${i}`]?.trim();
    if (at) reminders.push({ at, column: form[`column${i}`]?.trim() || null });
  }
  return {
    reminders,
    streakNudgeAt: form.streakNudgeAt?.trim() || null,
    // an unknown value is the action's to refuse, beside the form
    channel: form.channel?.trim() || "push",
  };
}

/** The flash after "Send a test reminder". */
export function testReminderWords(r: DeliveryReport & { emailed?: number }): string {
  const parts: string[] = [];
  if (r.emailed) parts.push("Test reminder e-mailed to your verified address.");
  if (r.sent > 0) {
    parts.push(`Test reminder sent to ${r.sent} ${r.sent === 1 ? "device" : "devices"}.`);
  }
  if (r.dropped > 0) {
    parts.push(`${r.dropped} device no longer accepts notifications and was removed.`);
  }
  if (r.failed > 0) parts.push(`${r.failed} could not be reached; try again later.`);
  if (parts.length === 0) {
    return "No device receives reminders yet: turn notifications on first, or choose e-mail.";
  }
  return parts.join(" ");
}
