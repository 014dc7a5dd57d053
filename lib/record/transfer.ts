/**
 * Export (JSON or CSV) and import of a member's record (DESIGN §8, §14). Our CSV has one row per
 * day: `date`, one column per metric key, and an optional `note`; cells hold a number,
 * `true`/`false`, `skip`, or nothing (missing). Imports also read our JSON export, Loop Habit
 * Tracker and Daylio exports (lib/record/import_json.ts, import_loop.ts, import_daylio.ts). Every import is validated row by row; if
 * any row is rejected nothing is written and the report lists every rejected row.
 */

import { stringify } from "csv-stringify/sync";
import { formatDay, parseDay } from "../foundation/dates.ts";
import { AppError } from "../foundation/errors.ts";
import { getMember } from "../accounts/accounts.ts";
import type { Column, DayValue } from "./types.ts";
import {
  allEntries,
  DEFAULT_AGG,
  type EntryView,
  listColumns,
  type Profile,
  profileOf,
  type StoreContext,
  validateValue,
} from "./store.ts";
import { parseDaylio } from "./import_daylio.ts";
import { parseLoop, readLoopFiles } from "./import_loop.ts";
import { parseOwnJson } from "./import_json.ts";
import {
  commitPlan,
  type ImportResult,
  type OnConflict,
  planImport,
  readImportTarget,
} from "./import_plan.ts";
import {
  collectRowError,
  csvTable,
  type ImportFormat,
  keyFromName,
  labelFromName,
  MAX_IMPORT_BYTES,
  type ParsedImport,
  type ParsedRow,
  refuseRepeatedHeaders,
  type RejectedRow,
  type SourceColumn,
} from "./import_source.ts";
import { looksLikeZip } from "./zip.ts";
import { listPauses, type PauseViewOf } from "./pauses.ts";

/** The JSON export. */
export interface RecordExport {
  format: "json";
  exportedAt: string;
  profile: Omit<Profile, "createdAt"> & { createdAt: string };
  columns: Column[];
  entries: EntryView[];
  /** The member's pauses (issue #25), newest first: their days are not in `entries`. */
  pauses: PauseViewOf[];
}

/**
 * Text a spreadsheet would read as a formula: OWASP "CSV Injection"
 * (https://owasp.org/www-community/attacks/CSV_Injection) lists cells beginning with `=`, `+`,
 * `-`, `@`, tab (0x09) or carriage return (0x0D). The leading run of `'` is part of the pattern so
 * the escape below stays unambiguous.
 */
const FORMULA_LIKE = /^'*[=+\-@\t\r]/;

/**
 * A free-text cell (a note) as our CSV export writes it. OWASP's advice: prefix a formula-like
 * cell with `'` so a spreadsheet treats it as text, not a formula to run. To keep the round trip
 * exact the escape is unambiguous: a note that already is `'` + formula-like text (`'=a`) gets a
 * `'` too (`''=a`), and `csvTextOf` strips exactly one `'` from every cell that is `'` +
 * formula-like text. Any other text (`'plain`, `a = b`) is written as it is. Only notes pass here:
 * the header holds column keys (`[a-z][a-z0-9_]*`), the other cells numbers, `true`/`false` or
 * `skip`, so a negative number (`-3`) stays a number.
 */
export function csvSafeText(text: string): string {
  return FORMULA_LIKE.test(text) ? `'${text}` : text;
}

/** The inverse of `csvSafeText`, applied to the note cells of our own CSV on import. */
export function csvTextOf(cell: string): string {
  return cell.startsWith("'") && FORMULA_LIKE.test(cell.slice(1)) ? cell.slice(1) : cell;
}

/** Exports the whole record as JSON or CSV text. */
export async function exportRecord(
  ctx: StoreContext,
  memberId: string,
  format: "json" | "csv",
): Promise<RecordExport | { format: "csv"; exportedAt: string; csv: string }> {
  const [member, columns, entries, pauses] = await Promise.all([
    getMember(ctx.kv, memberId),
    listColumns(ctx.kv, memberId),
    allEntries(ctx.kv, memberId),
    listPauses(ctx.kv, memberId),
  ]);
  const exportedAt = new Date(ctx.clock()).toISOString();
  if (format === "csv") {
    const header = ["date", ...columns.map((c) => c.key), "note"];
    const rows = entries.map(([day, e]) => [
      formatDay(day),
      ...columns.map((c) => e.values[c.key] === undefined ? "" : String(e.values[c.key])),
      csvSafeText(e.note ?? ""),
    ]);
    return { format, exportedAt, csv: stringify([header, ...rows]) };
  }
  return {
    format,
    exportedAt,
    profile: profileOf(member),
    columns,
    entries: entries.map(([day, e]) => ({ date: formatDay(day), values: e.values, note: e.note })),
    pauses,
  };
}

function cellValue(column: Column, cell: string): DayValue | undefined {
  const text = cell.trim();
  if (text === "") return undefined;
  if (text === "skip") return "skip";
  if (column.type === "boolean") {
    if (/^(true|1|yes)$/i.test(text)) return true;
    if (/^(false|0|no)$/i.test(text)) return false;
    return validateValue(column, text as unknown as DayValue);
  }
  const n = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : NaN;
  if (Number.isNaN(n)) {
    throw new AppError(
      "invalid_value",
      `Column "${column.key}": "${text.slice(0, 40)}" is not a number.`,
    );
  }
  return n;
}

/** One validated import row. */
interface ImportRow {
  day: number;
  values: Record<string, DayValue>;
  note: string | null | undefined;
}

/** A column key as the store accepts it (lib/record/store.ts `ColumnKey`). */
const COLUMN_KEY = /^[a-z][a-z0-9_]{0,39}$/;

/**
 * The column a header of our CSV that names none of the member's columns becomes (#25: a fresh
 * account imports its own export). The CSV carries only keys and values, so the type is read from
 * the cells: all `true`/`false` → yes/no, all whole numbers → integer, else number. The JSON export
 * carries every definition; the preview says which to prefer.
 */
export function inferColumn(header: string, cells: string[]): Column {
  const given = cells.map((c) => c.trim()).filter((c) => c !== "" && c !== "skip");
  const type: Column["type"] = given.length > 0 && given.every((c) => /^(true|false)$/i.test(c))
    ? "boolean"
    : given.every((c) => /^[-+]?\d+$/.test(c))
    ? "integer"
    : "number";
  const key = COLUMN_KEY.test(header) ? header : keyFromName(header);
  const words = header.replace(/_+/g, " ");
  return {
    key,
    label: labelFromName(words.charAt(0).toUpperCase() + words.slice(1)),
    type,
    unit: null,
    scale_min: null,
    scale_max: null,
    direction: "neutral",
    daily_agg: DEFAULT_AGG[type],
    goal: null,
    missing_policy: "neutral",
    archived: false,
  };
}

/** The columns of our CSV's header: the member's own by key, the others inferred from the cells. */
function ownCsvColumns(table: string[][], header: string[], columns: Column[]) {
  const byKey = new Map(columns.map((c) => [c.key, c]));
  const sources: SourceColumn[] = [];
  header.forEach((h, j) => {
    if (j === 0 || h === "note") return;
    if (h === "") throw new AppError("invalid_request", `Header cell ${j + 1} is empty.`);
    const own = byKey.get(h);
    const column = own ?? inferColumn(h, table.slice(1).map((cells) => cells[j] ?? ""));
    // `archived` stays the column's own: a CSV cannot say a column is archived (the JSON can).
    const { archived: _a, ...fields } = column;
    sources.push({ ...fields, source: h, existingOnly: own !== undefined });
    byKey.set(h, column);
  });
  return { sources, byKey };
}

/**
 * Our own CSV (the `exportRecord` CSV): `date`, column keys, optional `note`. A key the member has
 * is that column; any other becomes a new column (`inferColumn`). Empty cells keep what is stored.
 */
export function parseOwnCsv(csv: string, columns: Column[]): ParsedImport {
  const table = csvTable(csv);
  const header = table[0].map((h) => h.trim());
  if (header[0] !== "date") {
    throw new AppError("invalid_request", 'The first header cell must be "date".');
  }
  refuseRepeatedHeaders(header);
  const { sources, byKey } = ownCsvColumns(table, header, columns);
  const errors: RejectedRow[] = [];
  const rows: ParsedRow[] = [];
  table.slice(1).forEach((cells, i) => {
    const row: ParsedRow = { line: i + 2, date: (cells[0] ?? "").trim(), values: new Map() };
    collectRowError(errors, row, () => {
      readOwnRow(row, cells, header, byKey);
      rows.push(row);
    });
  });
  return {
    format: "routine-tracker",
    sourceRows: table.length - 1,
    columns: sources,
    rows,
    errors,
    notices: ownCsvNotices(sources),
  };
}

function ownCsvNotices(sources: SourceColumn[]): string[] {
  const notices = ["Each header names a column by its key; empty cells keep what is logged."];
  if (sources.some((s) => !s.existingOnly)) {
    notices.push(
      "Headers that name none of your columns become new columns, their type read from the " +
        "values (yes/no, whole number or number). The JSON export keeps each column's full " +
        "definition (type, unit, goal): import that to keep them.",
    );
  }
  return notices;
}

/** Reads one row of our CSV into `row`: values by source position (the note is not a source). */
function readOwnRow(row: ParsedRow, cells: string[], header: string[], byKey: Map<string, Column>) {
  if (cells.length > header.length) {
    throw new AppError("invalid_request", "More cells than header columns.");
  }
  let position = 0;
  header.slice(1).forEach((h, j) => {
    const cell = cells[j + 1] ?? "";
    if (h !== "note") {
      const value = cellValue(byKey.get(h)!, cell);
      if (value !== undefined) row.values.set(position, value);
      position++;
      return;
    }
    const note = csvTextOf(cell); // measured without the export's `'`: a 2000-character note fits
    if (note.length > 2000) {
      throw new AppError("invalid_request", "A note may have at most 2000 characters.");
    }
    if (note !== "") row.note = note;
  });
}

/** What `importRecord` is given. */
export interface ImportRequest {
  format: ImportFormat;
  /** CSV text; for Loop also the export's zip as bytes. */
  file: string | Uint8Array;
  /** Report what would happen (mapping, conflicts, errors) and write nothing. */
  dryRun?: boolean;
  /** Daylio: lower-case mood label → 1–5, overriding the default labels. */
  moodScale?: Record<string, number>;
  /** A day already logged: take the file's value (`replace`, the default) or keep the logged one. */
  onConflict?: OnConflict;
}

async function parseImport(request: ImportRequest, columns: () => Promise<Column[]>) {
  const bytes = typeof request.file === "string"
    ? new TextEncoder().encode(request.file)
    : request.file;
  if (bytes.byteLength > MAX_IMPORT_BYTES) {
    throw new AppError(
      "payload_too_large",
      `An import file may have at most ${MAX_IMPORT_BYTES} bytes.`,
      {
        details: { maxBytes: MAX_IMPORT_BYTES },
      },
    );
  }
  if (request.format === "loop") return parseLoop(await readLoopFiles(bytes));
  if (looksLikeZip(bytes)) {
    throw new AppError("invalid_request", "A zip file is only accepted for Loop Habit Tracker.");
  }
  const text = typeof request.file === "string" ? request.file : new TextDecoder().decode(bytes);
  if (request.format === "daylio") return parseDaylio(text, request.moodScale);
  if (request.format === "routine-tracker-json") return parseOwnJson(text);
  return parseOwnCsv(text, await columns());
}

/**
 * Imports a file in one of `IMPORT_FORMATS` (DESIGN §14): parse, map onto the member's columns,
 * validate every row. With `dryRun` it reports and writes nothing. Otherwise it throws
 * `import_rejected` (every rejected row in `details`) and writes nothing when any row fails, or
 * commits: new columns and changed days together (lib/record/import_plan.ts on commit size).
 * Importing the same file twice changes nothing the second time.
 */
export async function importRecord(
  ctx: StoreContext,
  memberId: string,
  request: ImportRequest,
): Promise<ImportResult> {
  // Read once, before the file is parsed: our CSV is read by the columns' types, and the plan's
  // commit checks this same columns entry (one round trip where there were two; issue #21).
  const target = await readImportTarget(ctx, memberId);
  const parsed = await parseImport(request, () => Promise.resolve(target.columnsEntry.value ?? []));
  const plan = await planImport(ctx, memberId, parsed, {
    target,
    onConflict: request.onConflict,
  });
  if (request.dryRun) return plan.result;
  const { errors, errorCount, rows } = plan.result;
  if (errorCount > 0) {
    throw new AppError(
      "import_rejected",
      `${errorCount} of ${rows} rows were rejected; nothing was written.`,
      { details: { rejected: errors, rejectedCount: errorCount } },
    );
  }
  return await commitPlan(ctx, memberId, plan);
}

/** Parses `YYYY-MM-DD` for reads (any real date), or throws `invalid_date`. */
export function readableDay(date: string): number {
  const day = parseDay(date);
  if (day === null) {
    throw new AppError("invalid_date", `"${date.slice(0, 40)}" is not a real YYYY-MM-DD date.`);
  }
  return day;
}
