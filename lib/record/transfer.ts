/**
 * Export (JSON or CSV) and CSV import of a member's record (DESIGN §8). The CSV has one row per day:
 * `date`, one column per metric key, and an optional `note`; cells hold a number, `true`/`false`,
 * `skip`, or nothing (missing). An import is validated row by row; if any row is rejected, nothing
 * is written and the report lists every rejected row.
 */

import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { formatDay, parseDay } from "../foundation/dates.ts";
import { AppError } from "../foundation/errors.ts";
import { getMember } from "../accounts/accounts.ts";
import type { Column, DayValue } from "./types.ts";
import {
  allEntries,
  type EntryView,
  listColumns,
  type Profile,
  profileOf,
  recordVersionEntry,
  type StoreContext,
  todayOf,
  validateValue,
  writableDay,
  writeEntries,
} from "./store.ts";

/** Rows per import: one atomic commit must hold them all (Deno KV: ≤ 1000 mutations). */
export const MAX_IMPORT_ROWS = 900;

/** The JSON export. */
export interface RecordExport {
  format: "json";
  exportedAt: string;
  profile: Omit<Profile, "createdAt"> & { createdAt: string };
  columns: Column[];
  entries: EntryView[];
}

/** Exports the whole record as JSON or CSV text. */
export async function exportRecord(
  ctx: StoreContext,
  memberId: string,
  format: "json" | "csv",
): Promise<RecordExport | { format: "csv"; exportedAt: string; csv: string }> {
  const [member, columns, entries] = await Promise.all([
    getMember(ctx.kv, memberId),
    listColumns(ctx.kv, memberId),
    allEntries(ctx.kv, memberId),
  ]);
  const exportedAt = new Date(ctx.clock()).toISOString();
  if (format === "csv") {
    const header = ["date", ...columns.map((c) => c.key), "note"];
    const rows = entries.map(([day, e]) => [
      formatDay(day),
      ...columns.map((c) => e.values[c.key] === undefined ? "" : String(e.values[c.key])),
      e.note ?? "",
    ]);
    return { format, exportedAt, csv: stringify([header, ...rows]) };
  }
  return {
    format,
    exportedAt,
    profile: profileOf(member),
    columns,
    entries: entries.map(([day, e]) => ({ date: formatDay(day), values: e.values, note: e.note })),
  };
}

/** One rejected CSV row: its 1-based line number (header = 1), date cell and why. */
export interface RejectedRow {
  line: number;
  date: string;
  reason: string;
}

/** The report of a successful import. */
export interface ImportReport {
  imported: number;
  columns: string[];
  firstDate: string | null;
  lastDate: string | null;
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

/**
 * Imports CSV rows, merging into existing days (cells left empty keep what is stored). Throws
 * `import_rejected` with every rejected row and writes nothing when any row fails; otherwise writes
 * all rows in one atomic commit, checked against the record version read before validation.
 */
export async function importRecord(
  ctx: StoreContext,
  memberId: string,
  csv: string,
): Promise<ImportReport> {
  const table = parseCsv(csv);
  const header = table[0].map((h) => h.trim());
  if (header[0] !== "date") {
    throw new AppError("invalid_request", 'The first header cell must be "date".');
  }
  const versionEntry = await recordVersionEntry(ctx.kv, memberId);
  const [member, columns] = await Promise.all([
    getMember(ctx.kv, memberId),
    listColumns(ctx.kv, memberId),
  ]);
  const byKey = new Map(columns.map((c) => [c.key, c]));
  checkHeader(header, byKey);
  const rows = parseRows(table, { header, byKey, today: todayOf(member, ctx.clock) });
  if (!(await writeEntries({ ctx, memberId, versionEntry, rows }))) {
    throw new AppError(
      "conflict",
      "The record changed during the import; nothing was written. Retry.",
    );
  }
  const days = rows.map((r) => r.day).sort((a, b) => a - b);
  return {
    imported: rows.length,
    columns: header.slice(1),
    firstDate: days.length ? formatDay(days[0]) : null,
    lastDate: days.length ? formatDay(days[days.length - 1]) : null,
  };
}

/** The CSV as rows of cells: a header and 1 … MAX_IMPORT_ROWS data rows, or `invalid_request`. */
function parseCsv(csv: string): string[][] {
  let table: string[][];
  try {
    table = parse(csv, {
      relax_column_count: true,
      skip_empty_lines: true,
      bom: true,
      trim: false,
    });
  } catch (err) {
    throw new AppError(
      "invalid_request",
      `The CSV does not parse: ${(err as Error).message.slice(0, 200)}`,
    );
  }
  if (table.length < 2) {
    throw new AppError("invalid_request", "The CSV needs a header row and at least one data row.");
  }
  if (table.length - 1 > MAX_IMPORT_ROWS) {
    throw new AppError(
      "invalid_request",
      `At most ${MAX_IMPORT_ROWS} rows per import; split the file.`,
    );
  }
  return table;
}

/** Every header after `date` names an existing column or `note`, once. */
function checkHeader(header: string[], byKey: Map<string, Column>): void {
  const seenHeaders = new Set<string>();
  for (const h of header.slice(1)) {
    if (h !== "note" && !byKey.has(h)) {
      throw new AppError(
        "unknown_column",
        `Header "${h.slice(0, 40)}" names no column; create it first.`,
        {
          details: { columns: [...byKey.keys()] },
        },
      );
    }
    if (seenHeaders.has(h)) throw new AppError("invalid_request", `Header "${h}" appears twice.`);
    seenHeaders.add(h);
  }
}

/** What validating a row needs. */
interface RowContext {
  header: string[];
  byKey: Map<string, Column>;
  /** The member's today: no row may be later. */
  today: number;
}

/** Validates every data row; throws `import_rejected` listing each rejected row. */
function parseRows(table: string[][], ctx: RowContext): ImportRow[] {
  const rejected: RejectedRow[] = [];
  const rows: ImportRow[] = [];
  const seenDays = new Set<number>();
  table.slice(1).forEach((cells, i) => {
    const date = (cells[0] ?? "").trim();
    try {
      rows.push(parseRow(cells, ctx, seenDays));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      rejected.push({ line: i + 2, date: date.slice(0, 40), reason: err.message });
    }
  });
  if (rejected.length > 0) {
    throw new AppError(
      "import_rejected",
      `${rejected.length} of ${table.length - 1} rows were rejected; nothing was written.`,
      {
        details: { rejected: rejected.slice(0, 200), rejectedCount: rejected.length },
      },
    );
  }
  return rows;
}

/** One data row (its date not on an earlier row), or the `AppError` that rejects it. */
function parseRow(
  cells: string[],
  { header, byKey, today }: RowContext,
  seenDays: Set<number>,
): ImportRow {
  if (cells.length > header.length) {
    throw new AppError("invalid_request", "More cells than header columns.");
  }
  const day = writableDay((cells[0] ?? "").trim(), today);
  if (seenDays.has(day)) {
    throw new AppError("invalid_request", "The same date appears on an earlier row.");
  }
  seenDays.add(day);
  const values: Record<string, DayValue> = {};
  let note: string | null | undefined;
  header.slice(1).forEach((h, j) => {
    const cell = cells[j + 1] ?? "";
    if (h === "note") {
      if (cell.length > 2000) {
        throw new AppError("invalid_request", "A note may have at most 2000 characters.");
      }
      note = cell === "" ? undefined : cell;
      return;
    }
    const column = byKey.get(h)!;
    const value = cellValue(column, cell);
    if (value !== undefined) values[h] = validateValue(column, value);
  });
  return { day, values, note };
}

/** Parses `YYYY-MM-DD` for reads (any real date), or throws `invalid_date`. */
export function readableDay(date: string): number {
  const day = parseDay(date);
  if (day === null) {
    throw new AppError("invalid_date", `"${date.slice(0, 40)}" is not a real YYYY-MM-DD date.`);
  }
  return day;
}
