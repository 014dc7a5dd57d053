/**
 * Meets a parsed import (lib/record/import_source.ts) with the member's record: maps each source
 * column to an existing column or a new one, validates every row with the store's own rules,
 * compares with what is logged (conflicts, unchanged days), and commits.
 *
 * Commit and idempotence: only days whose merged entry differs from the stored one are written, so
 * importing the same file again writes nothing. One Deno KV commit holds at most 1000 mutations
 * and 819,200 bytes of keys and stored values (lib/foundation/kv_limits.ts); an import that fits
 * (the common case: up to `IMPORT_PART_DAYS` changed days of `IMPORT_PART_BYTES`) is one
 * all-or-nothing commit together with its new columns. A larger one is written in parts, oldest
 * days first, each part atomic and checked against the record version; if it stops midway,
 * importing the same file again finishes it (days already written compare unchanged).
 */

import { formatDay, parseDay } from "../foundation/dates.ts";
import { AppError } from "../foundation/errors.ts";
import { valueSize } from "../foundation/kv_limits.ts";
import { getMember } from "../accounts/accounts.ts";
import type { MoodLabel, ParsedImport, RejectedRow, SourceColumn } from "./import_source.ts";
import {
  DEFAULT_AGG,
  MAX_COLUMNS,
  readColumnsEntry,
  readEntries,
  recordVersionEntry,
  type StoreContext,
  type StoredEntry,
  todayOf,
  validateValue,
  writableDay,
  writeEntries,
} from "./store.ts";
import type { Column, ColumnType, DayValue } from "./types.ts";

/** Changed days per commit: with the version bumps and the column list, under 1000 mutations. */
export const IMPORT_PART_DAYS = 900;
/**
 * Bytes of entries (values as stored, keys) per commit: with the column list (at most 64 KiB) and
 * the version bump, under the 819,200 bytes of one atomic operation (lib/foundation/kv_limits.ts).
 */
const IMPORT_PART_BYTES = 600 * 1024;
/** An entry key (`entries`, member id, day) is at most this many bytes. */
const ENTRY_KEY_BYTES = 64;
/** Rows, conflicts and errors listed in a preview (the counts are always complete). */
const LIST_LIMIT = 200;

/** How one source column lands in the record. */
export interface ImportMapping {
  source: string;
  key: string;
  label: string;
  type: ColumnType;
  unit: string | null;
  /** True when the import creates this column. */
  create: boolean;
}

/** A logged value the import would replace. */
export interface ImportConflict {
  date: string;
  column: string;
  stored: DayValue | string;
  incoming: DayValue | string;
}

/** One day as the import would leave it. */
export interface ImportDay {
  date: string;
  values: Record<string, DayValue>;
  note: string | null;
  status: "new" | "changed" | "unchanged";
}

/**
 * What a day already logged keeps when the file has another value for it: `replace` takes the
 * file's (the default), `keep` keeps what the member logged and fills only what is empty.
 */
export type OnConflict = "replace" | "keep";

/** What a preview or a commit reports. */
export interface ImportResult {
  format: ParsedImport["format"];
  committed: boolean;
  onConflict: OnConflict;
  rows: number;
  days: number;
  changed: number;
  unchanged: number;
  imported: number;
  parts: number;
  columns: string[];
  mapping: ImportMapping[];
  createdColumns: string[];
  conflicts: ImportConflict[];
  conflictCount: number;
  errors: RejectedRow[];
  errorCount: number;
  notices: string[];
  moods?: MoodLabel[];
  preview: ImportDay[];
  firstDate: string | null;
  lastDate: string | null;
}

interface TargetRow {
  day: number;
  values: Record<string, DayValue>;
  note: string | undefined;
}

/** An archived column takes values only from a file that says the column is archived too. */
function fits(source: SourceColumn, column: Column): boolean {
  return (!column.archived || source.archived === true) && column.type === source.type &&
    (source.type !== "scale" ||
      (column.scale_min === source.scale_min && column.scale_max === source.scale_max));
}

/**
 * Maps source columns, by position, to existing columns (same key or label, same type) or new
 * ones; `targets[i]` is where `sources[i]` lands. An existing column takes at most one source
 * column, so two source columns of one name (Loop's two habits `H`) never write into one column.
 */
export function mapColumns(sources: SourceColumn[], existing: Column[]) {
  const taken = new Set(existing.map((c) => c.key));
  const claimed = new Set<Column>();
  const targets: Column[] = [];
  const created: Column[] = [];
  for (const source of sources) {
    const byKey = existing.find((c) => c.key === source.key);
    if (source.existingOnly) {
      if (!byKey) throw new AppError("unknown_column", `No column has the key "${source.key}".`);
      targets.push(byKey);
      continue;
    }
    const label = source.label.toLowerCase();
    const match = [byKey, ...existing.filter((c) => c.label.toLowerCase() === label)]
      .find((c) => c && !claimed.has(c) && fits(source, c));
    if (match) {
      claimed.add(match);
      targets.push(match);
      continue;
    }
    let key = source.key;
    for (let n = 2; taken.has(key); n++) key = `${source.key.slice(0, 36)}_${n}`;
    taken.add(key);
    const { source: _s, existingOnly: _e, ...fields } = source;
    // Our JSON export states `archived` and `daily_agg`; the other formats leave the defaults.
    const column: Column = {
      ...fields,
      key,
      archived: source.archived ?? false,
      daily_agg: source.daily_agg ?? DEFAULT_AGG[source.type],
    };
    created.push(column);
    targets.push(column);
  }
  if (existing.length + created.length > MAX_COLUMNS) {
    throw new AppError(
      "too_many_columns",
      `The import needs ${created.length} new columns; a member may have at most ${MAX_COLUMNS}.`,
    );
  }
  return { targets, created };
}

/**
 * Validates dates and values of every row against the mapped columns. A row dated after the
 * member's today is left out (`later`), not an error: an export made where the day has already
 * turned (Berlin after midnight) imported where it has not must still import the rest (#25).
 */
function targetRows(parsed: ParsedImport, targets: Column[], today: number) {
  const errors = [...parsed.errors];
  const rows: TargetRow[] = [];
  const later: string[] = [];
  const seen = new Set<number>();
  for (const row of parsed.rows) {
    const parsedDay = parseDay(row.date);
    if (parsedDay !== null && parsedDay > today) {
      later.push(row.date);
      continue;
    }
    try {
      const day = writableDay(row.date, today);
      if (seen.has(day)) {
        throw new AppError("invalid_request", "The same date appears on an earlier row.");
      }
      seen.add(day);
      const values: Record<string, DayValue> = {};
      for (const [position, value] of row.values) {
        const column = targets[position];
        // A column the file itself marks archived (our JSON export) takes its history back.
        const open = parsed.columns[position].archived ? { ...column, archived: false } : column;
        values[column.key] = validateValue(open, value);
      }
      rows.push({ day, values, note: row.note });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      errors.push({ line: row.line, date: row.date.slice(0, 40), reason: err.message });
    }
  }
  errors.sort((a, b) => a.line - b.line);
  return { rows: rows.sort((a, b) => a.day - b.day), errors, later: later.sort() };
}

/** The preview's notice about rows left out for being after the member's today, if any. */
function laterNotice(later: string[], today: number): string[] {
  if (later.length === 0) return [];
  const shown = later.slice(0, 5).join(", ") + (later.length > 5 ? ", …" : "");
  const rows = later.length === 1 ? "1 row is" : `${later.length} rows are`;
  return [
    `${rows} dated after your today (${formatDay(today)}) and left out: ${shown}. ` +
    "Import the file again on that day to bring them in.",
  ];
}

/**
 * The entry a row leaves, or null when it equals what is stored: with `replace` the file's values
 * win, with `keep` the logged ones do and the file only fills what is empty.
 */
function merge(
  row: TargetRow,
  stored: StoredEntry | undefined,
  { now, onConflict }: { now: number; onConflict: OnConflict },
): StoredEntry | null {
  const keep = onConflict === "keep";
  const values = keep ? { ...row.values, ...stored?.values } : { ...stored?.values, ...row.values };
  const note = row.note === undefined || (keep && (stored?.note ?? null) !== null)
    ? stored?.note ?? null
    : row.note;
  const same = stored !== undefined && note === stored.note &&
    Object.keys(values).length === Object.keys(stored.values).length &&
    Object.entries(values).every(([k, v]) => stored.values[k] === v);
  return same ? null : { values, note, updatedAt: now };
}

function conflictsOf(row: TargetRow, stored: StoredEntry | undefined): ImportConflict[] {
  if (!stored) return [];
  const date = formatDay(row.day);
  const out: ImportConflict[] = Object.entries(row.values)
    .filter(([k, v]) => stored.values[k] !== undefined && stored.values[k] !== v)
    .map(([column, incoming]) => ({ date, column, stored: stored.values[column], incoming }));
  if (row.note !== undefined && stored.note !== null && stored.note !== row.note) {
    out.push({ date, column: "note", stored: stored.note, incoming: row.note });
  }
  return out;
}

/** Splits merged days into commits that each fit one Deno KV atomic operation. */
function splitParts<T extends { next: StoredEntry | null }>(merged: T[]): T[][] {
  const parts: T[][] = [];
  let part: T[] = [];
  let bytes = 0;
  for (const m of merged) {
    if (!m.next) continue;
    // The stored (V8) size, not the JSON length: a note with one ’ or emoji weighs twice its length.
    const size = valueSize(m.next) + ENTRY_KEY_BYTES;
    if (part.length >= IMPORT_PART_DAYS || bytes + size > IMPORT_PART_BYTES) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(m);
    bytes += size;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/** The member and the columns entry as read before an import (one round trip). */
export async function readImportTarget(ctx: StoreContext, memberId: string) {
  const [member, columnsEntry] = await Promise.all([
    getMember(ctx.kv, memberId),
    readColumnsEntry(ctx.kv, memberId),
  ]);
  return { member, columnsEntry };
}

/**
 * Everything a preview shows and a commit needs, from the record as `target` read it (the commit
 * checks that columns entry) and its stored days.
 */
export async function planImport(
  ctx: StoreContext,
  memberId: string,
  parsed: ParsedImport,
  { target, onConflict = "replace" }: {
    target: Awaited<ReturnType<typeof readImportTarget>>;
    onConflict?: OnConflict;
  },
) {
  const { member, columnsEntry } = target;
  const existing = columnsEntry.value ?? [];
  const { targets, created } = mapColumns(parsed.columns, existing);
  const today = todayOf(member, ctx.clock);
  const { rows, errors, later } = targetRows(parsed, targets, today);
  const stored = await readEntries(ctx.kv, memberId, rows.map((r) => r.day));
  const how = { now: ctx.clock(), onConflict };
  const merged = rows.map((row) => ({
    row,
    next: merge(row, stored.get(row.day), how),
    conflicts: conflictsOf(row, stored.get(row.day)),
  }));
  const conflicts = merged.flatMap((m) => m.conflicts);
  const changed = merged.filter((m) => m.next).length;
  const result: ImportResult = {
    format: parsed.format,
    committed: false,
    onConflict,
    rows: parsed.sourceRows,
    days: rows.length,
    changed,
    unchanged: rows.length - changed,
    imported: 0,
    parts: splitParts(merged).length,
    columns: [...new Set(targets.map((t) => t.key))],
    mapping: parsed.columns.map((s, i) => mappingOf(s, targets[i], created)),
    createdColumns: [],
    conflicts: conflicts.slice(0, LIST_LIMIT),
    conflictCount: conflicts.length,
    errors: errors.slice(0, LIST_LIMIT),
    errorCount: errors.length,
    notices: [...parsed.notices, ...laterNotice(later, today)],
    moods: parsed.moods,
    preview: merged.slice(-LIST_LIMIT).reverse().map((m) => dayOf(m.row, m.next, stored)),
    firstDate: rows.length ? formatDay(rows[0].day) : null,
    lastDate: rows.length ? formatDay(rows[rows.length - 1].day) : null,
  };
  return { result, rows, created, existing, columnsEntry, onConflict };
}

function mappingOf(source: SourceColumn, column: Column, created: Column[]): ImportMapping {
  const { key, label, type, unit } = column;
  return { source: source.source, key, label, type, unit, create: created.includes(column) };
}

function dayOf(row: TargetRow, next: StoredEntry | null, stored: Map<number, StoredEntry>) {
  const status: ImportDay["status"] = next === null
    ? "unchanged"
    : stored.has(row.day)
    ? "changed"
    : "new";
  return { date: formatDay(row.day), values: row.values, note: row.note ?? null, status };
}

/**
 * Commits a plan without errors: new columns and the first part in one checked atomic, then the
 * remaining parts (if any), each re-read and re-merged so a concurrent edit is never lost.
 */
export async function commitPlan(
  ctx: StoreContext,
  memberId: string,
  plan: Awaited<ReturnType<typeof planImport>>,
): Promise<ImportResult> {
  let written = 0;
  let parts = 0;
  let columns: { entry: typeof plan.columnsEntry; next: Column[] } | undefined = plan.created
      .length
    ? { entry: plan.columnsEntry, next: [...plan.existing, ...plan.created] }
    : undefined;
  let remaining = plan.rows;
  while (remaining.length > 0 || columns) {
    const { consumed, count } = await commitNextPart(ctx, memberId, {
      rows: remaining,
      columns,
      onConflict: plan.onConflict,
    });
    remaining = remaining.slice(consumed);
    written += count;
    if (count > 0 || columns) parts++;
    columns = undefined;
  }
  return {
    ...plan.result,
    committed: true,
    imported: written,
    changed: written,
    unchanged: plan.rows.length - written,
    parts,
    createdColumns: plan.created.map((c) => c.key),
  };
}

async function commitNextPart(
  ctx: StoreContext,
  memberId: string,
  { rows, columns, onConflict }: {
    rows: TargetRow[];
    columns: { entry: Deno.KvEntryMaybe<Column[]>; next: Column[] } | undefined;
    onConflict: OnConflict;
  },
): Promise<{ consumed: number; count: number }> {
  const candidates = rows.slice(0, IMPORT_PART_DAYS);
  for (let attempt = 0; attempt < 8; attempt++) {
    const versionEntry = await recordVersionEntry(ctx.kv, memberId);
    const stored = await readEntries(ctx.kv, memberId, candidates.map((r) => r.day));
    const merged = candidates.map((row) => ({
      row,
      next: merge(row, stored.get(row.day), { now: ctx.clock(), onConflict }),
    }));
    const part = splitParts(merged)[0] ?? [];
    // Rows up to the last one in this part are done (unchanged ones need no write).
    const consumed = part.length ? merged.indexOf(part[part.length - 1]) + 1 : candidates.length;
    if (part.length === 0 && !columns) return { consumed, count: 0 };
    const entries = part.map((m) => ({ day: m.row.day, entry: m.next! }));
    if (await writeEntries(ctx, memberId, { versionEntry, entries, columns })) {
      return { consumed, count: entries.length };
    }
    if (columns) break; // the column list changed under us: the whole plan is stale
  }
  throw new AppError(
    "conflict",
    "The record changed during the import; nothing more was written. Import the same file again.",
  );
}
