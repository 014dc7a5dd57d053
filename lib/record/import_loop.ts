/**
 * Loop Habit Tracker's CSV export (iSoron/uhabits `HabitsCSVExporter`; webapp-anchors §1.2):
 * a zip holding `Habits.csv` and a top-level `Checkmarks.csv` — `Date,<habit>,<habit>,` (every
 * line ends with a comma), newest day first, one row per day. Cells are entry codes: raw integers
 * up to v2.3.0, names from v2.3.1 (`YES_MANUAL` 2, `YES_AUTO` 1, `NO` 0, `UNKNOWN` -1, `SKIP` 3;
 * -3 tolerated for SKIP). Numeric habits store value × 1000.
 *
 * Mapping (DESIGN §14): YES_MANUAL → done, NO → not done, SKIP → skipped, UNKNOWN → nothing.
 * YES_AUTO is Loop's own computation ("not expected that day" under a weekly frequency), not a
 * check the member made, so it is imported as nothing and the preview says so.
 */

import { AppError } from "../foundation/errors.ts";
import {
  collectRowError,
  csvTable,
  keyFromName,
  labelFromName,
  MAX_IMPORT_BYTES,
  type ParsedImport,
  type ParsedRow,
  type RejectedRow,
  type SourceColumn,
  uniqueNames,
} from "./import_source.ts";
import type { DayValue, Goal } from "./types.ts";
import { looksLikeZip, readZipTexts } from "./zip.ts";

/** Loop's entry codes by name (`Entry.kt`). */
const CODES: Record<string, number> = { YES_MANUAL: 2, YES_AUTO: 1, NO: 0, UNKNOWN: -1, SKIP: 3 };

/** The two files of a Loop export this importer reads. */
export interface LoopFiles {
  checkmarks: string;
  habits?: string;
}

/** Reads Loop's export zip (Habits.csv + Checkmarks.csv) or a bare Checkmarks.csv. */
export async function readLoopFiles(bytes: Uint8Array): Promise<LoopFiles> {
  if (!looksLikeZip(bytes)) return { checkmarks: new TextDecoder().decode(bytes) };
  const files = await readZipTexts(bytes, ["Checkmarks.csv", "Habits.csv"], 4 * MAX_IMPORT_BYTES);
  const checkmarks = files.get("Checkmarks.csv");
  if (checkmarks === undefined) {
    throw new AppError(
      "invalid_request",
      "The zip holds no top-level Checkmarks.csv; is it Loop's CSV export?",
    );
  }
  return { checkmarks, habits: files.get("Habits.csv") };
}

interface HabitInfo {
  numeric: boolean;
  unit: string | null;
  goal: Goal | null;
  daysPerWeek: number | null;
}

function num(text: string | undefined): number | null {
  const n = Number(text);
  return text !== undefined && text.trim() !== "" && Number.isFinite(n) ? n : null;
}

/**
 * Habits.csv by habit name, each name's habits in file order (Loop allows two habits of one name;
 * Checkmarks.csv lists habits in the same order, so the n-th `H` column is the n-th `H` here).
 * Columns are found by header name (they differ between versions).
 */
function habitInfo(csv: string | undefined): Map<string, HabitInfo[]> {
  const out = new Map<string, HabitInfo[]>();
  if (!csv) return out;
  const [header, ...rows] = csvTable(csv);
  const at = (row: string[], name: string) => row[header.findIndex((h) => h.trim() === name)];
  for (const row of rows) {
    const name = at(row, "Name")?.trim();
    if (!name) continue;
    const numeric = at(row, "Type")?.trim() === "NUMERICAL";
    const target = num(at(row, "Target Value"));
    const op = at(row, "Target Type")?.trim() === "AT_MOST" ? "at_most" : "at_least";
    const times = num(at(row, "FrequencyNumerator") ?? at(row, "NumRepetitions"));
    const per = num(at(row, "FrequencyDenominator") ?? at(row, "Interval"));
    out.set(name, [...out.get(name) ?? [], {
      numeric,
      unit: numeric ? at(row, "Unit")?.trim().slice(0, 24) || null : null,
      goal: numeric && target !== null && target > 0
        ? { op, value: target, per: "day", times: null }
        : null,
      daysPerWeek: per === 7 && times !== null && times >= 1 && times < 7 ? times : null,
    }]);
  }
  return out;
}

function code(cell: string): number | null {
  const text = cell.trim().toUpperCase();
  if (text === "") return -1;
  if (text in CODES) return CODES[text];
  return /^-?\d+$/.test(text) ? Number(text) : null;
}

function sourceColumn(name: string, info: HabitInfo): SourceColumn {
  const goal: Goal | null = info.numeric
    ? info.goal
    : info.daysPerWeek
    ? { op: "true", value: null, per: "week", times: info.daysPerWeek }
    : { op: "true", value: null, per: "day", times: null };
  return {
    source: name,
    key: keyFromName(name),
    label: labelFromName(name),
    type: info.numeric ? "number" : "boolean",
    unit: info.unit,
    direction: info.numeric && info.goal?.op === "at_most" ? "lower_better" : "higher_better",
    goal,
    missing_policy: info.numeric ? "neutral" : "breaks",
    scale_min: null,
    scale_max: null,
  };
}

/** Turns one cell into a value (`undefined`: nothing to write), or throws `invalid_value`. */
function cellValue(
  habit: SourceColumn,
  cell: string,
  seen: { auto: number },
): DayValue | undefined {
  const n = code(cell);
  if (n === null) {
    throw new AppError(
      "invalid_value",
      `"${habit.source}": "${cell.trim().slice(0, 40)}" is not a Loop entry ` +
        "(YES_MANUAL, YES_AUTO, NO, SKIP, UNKNOWN or a number).",
    );
  }
  if (n === -1) return undefined;
  if (n === 3 || n === -3) return "skip";
  if (habit.type === "number") return n / 1000;
  if (n === 1) {
    seen.auto++;
    return undefined;
  }
  if (n === 2 || n === 0) return n === 2;
  throw new AppError("invalid_value", `"${habit.source}": ${n} is not a yes/no entry code.`);
}

/**
 * One source column per habit, by position: a repeated habit name (Loop allows two habits named
 * `H`) is kept as `H`, `H (2)` — never merged into one column (issue #19).
 */
function habitColumns(
  table: string[][],
  names: string[],
  infos: Map<string, HabitInfo[]>,
): SourceColumn[] {
  // Without Habits.csv a habit is numeric when a cell holds a number that is no entry code.
  const guessNumeric = (j: number) =>
    table.slice(1).some((r) => /^-?\d+$/.test(r[j + 1]?.trim() ?? "") && Math.abs(+r[j + 1]) > 3);
  const shown = uniqueNames(names);
  const occurrence = new Map<string, number>();
  return names.map((name, j) => {
    const n = occurrence.get(name) ?? 0;
    occurrence.set(name, n + 1);
    return sourceColumn(
      shown[j],
      infos.get(name)?.[n] ??
        { numeric: guessNumeric(j), unit: null, goal: null, daysPerWeek: null },
    );
  });
}

/** A sentence per repeated habit name, saying what each repeat was imported as. */
function repeatNotices(names: string[], columns: SourceColumn[]): string[] {
  const renamed = columns.filter((c, j) => c.source !== names[j]);
  return [...new Set(renamed.map((c) => names[columns.indexOf(c)]))].map((name) => {
    const as = columns.filter((_, j) => names[j] === name).map((c) => `"${c.source}"`);
    return `${as.length} habits are named "${name}": they are imported as ${as.join(", ")}.`;
  });
}

/** Parses a Loop export; rows with no data at all (all UNKNOWN) are left out. */
export function parseLoop(files: LoopFiles): ParsedImport {
  const table = csvTable(files.checkmarks);
  const header = table[0].map((h) => h.trim());
  if (header[0].toLowerCase() !== "date") {
    throw new AppError(
      "invalid_request",
      'This is not Loop\'s Checkmarks.csv: the first header cell must be "Date".',
    );
  }
  while (header.length > 1 && header[header.length - 1] === "") header.pop();
  const columns = habitColumns(table, header.slice(1), habitInfo(files.habits));
  const errors: RejectedRow[] = [];
  const rows: ParsedRow[] = [];
  const seen = { auto: 0 };
  table.slice(1).forEach((cells, i) => {
    const row: ParsedRow = { line: i + 2, date: (cells[0] ?? "").trim(), values: new Map() };
    collectRowError(errors, row, () => {
      columns.forEach((habit, j) => {
        const value = cellValue(habit, cells[j + 1] ?? "", seen);
        if (value !== undefined) row.values.set(j, value);
      });
      if (row.values.size > 0) rows.push(row);
    });
  });
  const notices = [
    files.habits
      ? "Habit types, units and targets come from Habits.csv."
      : "Read Checkmarks.csv alone: a habit holding numbers other than entry codes is taken as " +
        "numeric (value ÷ 1000); import Loop's whole zip to get units and targets.",
    "YES_MANUAL → done, NO → not done, SKIP → skipped, UNKNOWN → nothing written.",
  ];
  notices.push(...repeatNotices(header.slice(1), columns));
  if (seen.auto > 0) {
    notices.push(
      `${seen.auto} YES_AUTO cells (days Loop computed as "not expected") are not imported as ` +
        "done: nothing is written for them.",
    );
  }
  notices.push("Loop's habit score is not imported; Routine Tracker computes its own strength.");
  return { format: "loop", sourceRows: table.length - 1, columns, rows, errors, notices };
}
