/**
 * Daylio's CSV export (webapp-anchors §2): `full_date,date,weekday,time,mood,activities,
 * note_title,note`, newest entry first; older exports have `year,date,weekday,time,mood,
 * activities,note` with `date` like `18 May`. Moods are the member's own labels (default `rad,
 * good, meh, bad, awful`, 5 → 1), so they go through a label → 1–5 mapping the member confirms in
 * the preview. Activities are tags separated by `|`, each trimmed; they become yes/no columns.
 *
 * Several entries may fall on one day. Rule (shown in the preview): the mood of the day's newest
 * entry, every activity tagged in any entry (yes), the others no, and the notes joined oldest first.
 */

import { AppError } from "../foundation/errors.ts";
import { parseDay } from "../foundation/dates.ts";
import {
  collectRowError,
  csvTable,
  keyFromName,
  labelFromName,
  type MoodLabel,
  type ParsedImport,
  type ParsedRow,
  refuseRepeatedHeaders,
  type RejectedRow,
  type SourceColumn,
  uniqueNames,
} from "./import_source.ts";
import { MOOD_SCALE_COLUMN } from "./columns.ts";

/** Daylio's default mood labels (and older defaults) on our 1–5 scale. */
export const DEFAULT_MOOD_SCALE: Readonly<Record<string, number>> = {
  rad: 5,
  awesome: 5,
  amazing: 5,
  good: 4,
  happy: 4,
  meh: 3,
  average: 3,
  okay: 3,
  bad: 2,
  sad: 2,
  fugly: 2,
  awful: 1,
  horrible: 1,
};

/** Longest day note the store keeps. */
const MAX_NOTE = 2000;

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** The row's date as the file gives it, for the preview: `full_date`, or `year date`. */
function shownDate(cell: (name: string) => string): string {
  return cell("full_date") || `${cell("year")} ${cell("date")}`.trim();
}

/**
 * `full_date` as given (checked later, like every date), or the older `year` + `date` ("18 May")
 * as YYYY-MM-DD. An impossible day ("31 February", "0 May") throws `invalid_date` for its row:
 * it is never rolled over into the next month, as `Date` arithmetic would (issue #19).
 */
function isoDate(cell: (name: string) => string): string {
  const full = cell("full_date");
  if (full) return full;
  const year = cell("year");
  const m = /^(\d{1,2})\s+([a-z]+)$/i.exec(cell("date"));
  const month = m ? MONTHS.indexOf(m[2].toLowerCase()) + 1 : 0;
  if (!m || month === 0 || !/^\d{4}$/.test(year)) return shownDate(cell); // the date check names it
  const date = `${year}-${String(month).padStart(2, "0")}-${m[1].padStart(2, "0")}`;
  if (parseDay(date) === null) {
    throw new AppError("invalid_date", `${m[1]} ${m[2]} ${year} is not a real date.`);
  }
  return date;
}

function noteOf(title: string, body: string): string {
  const text = body.replace(/<br\s*\/?>/gi, "\n").replace(/<[^>]+>/g, "").trim();
  return [title.trim(), text].filter((s) => s !== "").join("\n");
}

interface DayGroup {
  row: ParsedRow;
  mood?: number;
  tags: Set<string>;
  notes: string[];
}

function moodColumn(): SourceColumn {
  return { source: "mood", ...MOOD_SCALE_COLUMN, scale_min: 1, scale_max: 5 };
}

function activityColumn(name: string): SourceColumn {
  return {
    ...moodColumn(),
    source: name,
    key: keyFromName(name),
    label: labelFromName(name),
    type: "boolean",
    direction: "neutral",
    scale_min: null,
    scale_max: null,
  };
}

/** Reads the rows into day groups, collecting moods, activities and per-row errors. */
function groupDays(table: string[][], moodScale: Record<string, number>) {
  const header = table[0].map((h) => h.trim().toLowerCase());
  const days = new Map<string, DayGroup>();
  const activities = new Map<string, string>();
  const moods = new Map<string, MoodLabel>();
  const errors: RejectedRow[] = [];
  table.slice(1).forEach((cells, i) => {
    const cell = (name: string) => (cells[header.indexOf(name)] ?? "").trim();
    // The error shows the ISO date once it is known, else the date as the file gives it.
    const at = { line: i + 2, date: shownDate(cell) };
    collectRowError(errors, at, () => {
      const date = at.date = isoDate(cell);
      const label = cell("mood").toLowerCase();
      const mood = moods.get(label) ?? { label, count: 0, value: moodScale[label] ?? null };
      moods.set(label, { ...mood, count: mood.count + 1 });
      if (label !== "" && mood.value === null) {
        throw new AppError(
          "invalid_value",
          `Mood "${
            label.slice(0, 40)
          }" has no place on the 1–5 scale yet: choose it in the mapping.`,
        );
      }
      const group: DayGroup = days.get(date) ??
        { row: { line: i + 2, date, values: new Map() }, tags: new Set(), notes: [] };
      group.mood ??= mood.value ?? undefined;
      for (const tag of cell("activities").split("|").map((t) => t.trim()).filter(Boolean)) {
        const known = activities.get(tag.toLowerCase()) ?? tag;
        activities.set(tag.toLowerCase(), known);
        group.tags.add(known);
      }
      const note = noteOf(cell("note_title"), cell("note"));
      if (note) group.notes.unshift(note);
      days.set(date, group);
    });
  });
  return { days, activities: [...activities.values()], moods: [...moods.values()], errors };
}

/**
 * Parses a Daylio export. `moodScale` maps lower-case mood labels to 1–5 and overrides the
 * defaults; a label without a place makes its rows errors until the member gives it one.
 */
export function parseDaylio(csv: string, moodScale: Record<string, number> = {}): ParsedImport {
  const table = csvTable(csv);
  const header = table[0].map((h) => h.trim().toLowerCase());
  refuseRepeatedHeaders(header); // columns are found by name: a repeat would be read once
  if (!header.includes("mood") || !header.includes("activities")) {
    throw new AppError(
      "invalid_request",
      "This is not a Daylio export: the header needs mood and activities columns.",
    );
  }
  const scale = { ...DEFAULT_MOOD_SCALE, ...moodScale };
  const { days, activities, moods, errors } = groupDays(table, scale);
  let shortened = 0;
  const rows = [...days.values()].map((g) => {
    // Positions: 0 is the mood, 1… the activities (an activity may itself be named "mood").
    const values: ParsedRow["values"] = new Map(activities.map((a, j) => [j + 1, g.tags.has(a)]));
    if (g.mood !== undefined) values.set(0, g.mood);
    const note = g.notes.join("\n\n");
    if (note.length > MAX_NOTE) shortened++;
    return { ...g.row, values, note: note ? note.slice(0, MAX_NOTE) : undefined };
  });
  const notices = [
    "Mood labels map to a 1–5 Mood column (the mapping is shown below); each activity becomes " +
    "a yes/no column: yes on a day it is tagged, no on the other days with an entry.",
    "Several entries on one day: the newest entry's mood, every activity of the day, the notes " +
    "joined oldest first.",
  ];
  if (shortened > 0) {
    notices.push(
      `${shortened} day notes are longer than ${MAX_NOTE} characters and are shortened.`,
    );
  }
  const columns = [moodColumn(), ...activities.map(activityColumn)];
  // An activity may be named "mood": the preview shows it as "mood (2)" beside the mood itself.
  const shown = uniqueNames(columns.map((c) => c.source));
  columns.forEach((c, i) => c.source = shown[i]);
  return { format: "daylio", sourceRows: table.length - 1, columns, rows, errors, notices, moods };
}
