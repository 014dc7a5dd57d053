/**
 * The reminder form's inline check (issue #25): run by the hydrated Reminders island before the
 * form is sent, with the server's own messages (lib/notify/reminders.ts `ReminderSettings`; the
 * test tests/http/reminders_test.ts holds them equal), so a mistake shows beside its field without
 * a round trip. The server checks the form again: this only saves a trip, it decides nothing
 * (OWASP Input Validation: server-side is the control). No lib/ import, so the bundle stays small.
 */

/** lib/notify/schedule.ts `WALL_TIME`: HH:MM, 00:00 to 23:59. */
const WALL_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** `ReminderSettings`' message for a time that is not HH:MM. */
export const TIME_MESSAGE = "a time is HH:MM, 00:00 to 23:59";

/** `ReminderSettings`' message for more than `max` reminder times. */
export function tooManyMessage(max: number): string {
  return `At most ${max} reminder times: leave one empty.`;
}

/** The form's values → its errors by field (`{}` when it may be sent). */
export function checkReminders(
  values: Record<string, string>,
  maxReminders: number,
): Record<string, string> {
  const errors: Record<string, string> = {};
  const times = Object.keys(values).filter((k) => /^at\d+$/.test(k) && values[k].trim() !== "");
  for (const name of [...times, "streakNudgeAt"]) {
    const v = (values[name] ?? "").trim();
    if (v !== "" && !WALL_TIME.test(v)) errors[name] = TIME_MESSAGE;
  }
  if (times.length > maxReminders) errors[times[maxReminders]] ??= tooManyMessage(maxReminders);
  return errors;
}
