/**
 * What a reminder says, from the member's record at the moment it is due: nothing at all when the
 * day (or the column) is already logged — a reminder only for what is missing — and, at the nudge
 * time, each daily streak of two days or more that ends unless it is logged today.
 */

import { computeStreak } from "../analytics/streak.ts";
import { seriesOf } from "../analytics/common.ts";
import type { MemberRecord } from "../record/types.ts";
import type { PushPayload } from "./push.ts";
import type { ReminderSettingsValue } from "./reminders.ts";

/** The title of every reminder. */
export const REMINDER_TITLE = "Routine Tracker";

/** Whether the record holds any value (or note) for its today. */
function dayLogged(record: MemberRecord): boolean {
  if (record.notes.has(record.today)) return true;
  return record.columns.some((c) => !c.archived && seriesOf(record, c.key).has(record.today));
}

/** The lines of the reminders among `settings` due at one of `times`. */
function reminderLines(record: MemberRecord, settings: ReminderSettingsValue, times: string[]) {
  const lines: string[] = [];
  for (const r of settings.reminders.filter((r) => times.includes(r.at))) {
    if (r.column === null) {
      if (!dayLogged(record)) lines.push("Nothing is logged for today yet.");
      continue;
    }
    const column = record.columns.find((c) => c.key === r.column && !c.archived);
    if (column && !seriesOf(record, column.key).has(record.today)) {
      lines.push(`${column.label} is not logged for today yet.`);
    }
  }
  return lines;
}

/** One line per daily streak of 2+ days that ends unless today is logged. */
function streakLines(record: MemberRecord): string[] {
  const lines: string[] = [];
  for (const column of record.columns) {
    if (column.archived) continue;
    const s = computeStreak(column, seriesOf(record, column.key), record.today);
    if (s.status === "at_risk" && s.unit === "day" && (s.current?.length ?? 0) >= 2) {
      lines.push(
        `Your ${s.current!.length}-day ${column.label} streak ends today unless you log it.`,
      );
    }
  }
  return lines;
}

/**
 * The message for the reminder times `times` (those due now), or null when there is nothing to
 * remind of. Its `url` opens Today.
 */
export function reminderMessage(
  record: MemberRecord,
  settings: ReminderSettingsValue,
  times: string[],
): PushPayload | null {
  const lines = [...new Set(reminderLines(record, settings, times))];
  if (settings.streakNudgeAt && times.includes(settings.streakNudgeAt)) {
    lines.push(...streakLines(record));
  }
  if (lines.length === 0) return null;
  return { title: REMINDER_TITLE, body: lines.join(" "), url: "/app" };
}

/** The test reminder (Settings, "Send a test reminder"). */
export const TEST_REMINDER: PushPayload = {
  title: REMINDER_TITLE,
  body: "This is a test reminder: reminders will reach this device.",
  url: "/app",
};
