/**
 * A member's stored record: profile, columns and one entry per member-local day (DESIGN §8).
 * Every write commits together with a bump of the member's record version — one commit, no key
 * shared with other members — so per-instance record caches (lib/record/member_records.ts), which
 * read that version on each load, never serve a stale record.
 * Writes are validated by the same zod schemas the tools read with (`GoalSchema`, `DateString`).
 */

import { z } from "zod";
import type { Clock } from "../foundation/clock.ts";
import { type DayNumber, formatDay, localDay, parseDay, TimeZone } from "../foundation/dates.ts";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { commitKv, RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { KV_LIMITS } from "../foundation/kv_limits.ts";
import {
  DATE_LOCALES,
  localeOf,
  type Member,
  themeOf,
  THEMES,
  weekStartsOn,
} from "../accounts/accounts.ts";
import {
  ColumnTypeSchema,
  DailyAggSchema,
  DirectionSchema,
  GoalSchema,
  MAX_GROUP_CHARS,
  MissingPolicySchema,
} from "./columns.ts";
import type { Column, ColumnType, DayValue } from "./types.ts";
import { DEFAULT_DEBOUNCE_MS, scheduleCoach } from "./coach_schedule.ts";
import { bumpOtherWrite, type RecordChanges, withChange } from "./record_snapshot.ts";

/** A member may define at most this many columns (bounds a record's size and `list_columns`). */
export const MAX_COLUMNS = 64;

/** One stored day. Columns absent from `values` are missing that day. */
export interface StoredEntry {
  values: Record<string, DayValue>;
  note: string | null;
  updatedAt: number;
}

/** A day's entry as the API returns it. */
export interface EntryView {
  date: string;
  values: Record<string, DayValue>;
  note: string | null;
}

/** What every store function needs. */
export interface StoreContext {
  kv: Deno.Kv;
  clock: Clock;
  /** Quiet time before the coach analyses the record after a write (config `coachDebounceMs`). */
  coachDebounceMs?: number;
}

/** The profile fields a member can see and change. */
export interface Profile {
  username: string;
  displayName: string;
  timezone: string;
  units: Member["units"];
  dayStartOffsetHours: number;
  /** The web app's colour scheme: `system` follows the device. */
  theme: NonNullable<Member["theme"]>;
  /** First day of the week, 0 = Sunday … 6 = Saturday. */
  weekStartsOn: number;
  /** The locale dates are written in on the web app's pages. */
  locale: NonNullable<Member["locale"]>;
  createdAt: string;
}

/** Latest hour a member's day may start (Loop's day-start offset: a night owl's 2 a.m. is still "today"). */
export const MAX_DAY_START_HOUR = 12;

/** `updateProfile` fields; at least one. */
export const ProfilePatch = z.object({
  displayName: z.string().trim().min(1).max(80).optional(),
  timezone: TimeZone.optional(),
  units: z.enum(["metric", "imperial"]).optional(),
  dayStartOffsetHours: z.int().min(0).max(MAX_DAY_START_HOUR).optional().meta({
    description: "Hour (0–12) at which the member's day starts; before it, it is still yesterday.",
  }),
  theme: z.enum(THEMES).optional().meta({
    description: "The web app's colour scheme: system (the device's), light or dark.",
  }),
  weekStartsOn: z.int().min(0).max(6).optional().meta({
    description: "First day of the week: 0 = Sunday … 6 = Saturday (default 1, Monday).",
  }),
  locale: z.enum(DATE_LOCALES).optional().meta({
    description:
      "How the web app writes dates: en-GB (26 November 2026) or en-US (November 26, 2026).",
  }),
}).strict().refine(
  (p) => Object.keys(p).length > 0,
  "Send at least one of displayName, timezone, units, dayStartOffsetHours, theme, weekStartsOn, locale.",
);

const ColumnKey = z.string().regex(
  /^[a-z][a-z0-9_]{0,39}$/,
  "Column key: 1–40 characters of a-z, 0-9, _ starting with a letter.",
);

const ColumnFields = {
  label: z.string().trim().min(1).max(80),
  unit: z.string().trim().min(1).max(24).nullable(),
  direction: DirectionSchema,
  daily_agg: DailyAggSchema,
  goal: GoalSchema.nullable(),
  missing_policy: MissingPolicySchema,
  scale_min: z.int().min(-1000).max(1000).nullable(),
  scale_max: z.int().min(-1000).max(1000).nullable(),
  // Blank means no group: a form's emptied field and `null` both take the column out of its group.
  group: z.string().trim().max(MAX_GROUP_CHARS).nullable().meta({
    description: `A short group label (≤ ${MAX_GROUP_CHARS} characters) under which Today and ` +
      "the habit list show the column; null or blank for none.",
  }),
};

/** `createColumn`: the column metadata `list_columns` reports, with defaults. */
export const ColumnCreate = z.object({
  key: ColumnKey,
  label: ColumnFields.label,
  type: ColumnTypeSchema,
  unit: ColumnFields.unit.default(null),
  direction: ColumnFields.direction.default("neutral"),
  daily_agg: ColumnFields.daily_agg.optional(),
  goal: ColumnFields.goal.default(null),
  missing_policy: ColumnFields.missing_policy.default("neutral"),
  scale_min: ColumnFields.scale_min.optional(),
  scale_max: ColumnFields.scale_max.optional(),
  group: ColumnFields.group.optional(),
}).strict();

/** `updateColumn`: any metadata but the key and the type (stored values are typed by it). */
export const ColumnPatch = z.object({
  label: ColumnFields.label.optional(),
  unit: ColumnFields.unit.optional(),
  direction: ColumnFields.direction.optional(),
  daily_agg: ColumnFields.daily_agg.optional(),
  goal: ColumnFields.goal.optional(),
  missing_policy: ColumnFields.missing_policy.optional(),
  scale_min: ColumnFields.scale_min.optional(),
  scale_max: ColumnFields.scale_max.optional(),
  group: ColumnFields.group.optional(),
}).strict();

/** A value as sent: a number, a boolean, `"skip"`, or `null` to clear the day in that column. */
export const ValueInput = z.union([z.number(), z.boolean(), z.literal("skip"), z.null()]);

function checkGoal(column: Column): void {
  const g = column.goal;
  if (!g) return;
  if (g.op === "true" ? column.type !== "boolean" : column.type === "boolean") {
    throw new AppError(
      "invalid_request",
      `Goal op "${g.op}" does not fit a ${column.type} column.`,
    );
  }
  if (g.op !== "true" && (g.value === null || !Number.isFinite(g.value))) {
    throw new AppError("invalid_request", `Goal op "${g.op}" needs a numeric value.`);
  }
  if (g.per === "week" && (g.times === null || g.times < 1 || g.times > 7)) {
    throw new AppError("invalid_request", "A weekly goal needs times from 1 to 7.");
  }
}

/** The checks `createColumn` applies to a whole definition (an import's new columns pass them too). */
export function checkColumn(column: Column): void {
  checkScale(column);
  checkGoal(column);
}

function checkScale(column: Column): void {
  if (column.type !== "scale") return;
  if (
    column.scale_min === null || column.scale_max === null || column.scale_min >= column.scale_max
  ) {
    throw new AppError("invalid_request", "A scale column needs integer scale_min < scale_max.");
  }
}

/** How a new column's values combine into a bucket when it does not say. */
export const DEFAULT_AGG: Record<ColumnType, Column["daily_agg"]> = {
  number: "mean",
  integer: "sum",
  boolean: "any",
  scale: "mean",
  duration_min: "sum",
  time_of_day: "last",
};

/**
 * Checks a value against its column: the type, then a sane range (±1e9, scale bounds, minutes in a
 * day). Throws `invalid_value` naming the column.
 */
export function validateValue(column: Column, value: DayValue): DayValue {
  if (value === "skip") return value;
  const fail = (why: string) =>
    new AppError("invalid_value", `Column "${column.key}" (${column.type}): ${why}`, {
      details: { column: column.key },
    });
  if (column.archived) throw fail("the column is archived; unarchive it to write values.");
  if (column.type === "boolean") {
    if (typeof value !== "boolean") throw fail('expected true, false or "skip".');
    return value;
  }
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw fail('expected a number or "skip".');
  }
  switch (column.type) {
    case "integer":
      if (!Number.isInteger(value) || Math.abs(value) > 1e9) {
        throw fail("expected an integer within ±1e9.");
      }
      break;
    case "scale":
      if (!Number.isInteger(value) || value < column.scale_min! || value > column.scale_max!) {
        throw fail(`expected an integer from ${column.scale_min} to ${column.scale_max}.`);
      }
      break;
    case "duration_min":
      if (value < 0 || value > 1440) throw fail("expected minutes from 0 to 1440.");
      break;
    case "time_of_day":
      if (value < 0 || value >= 1440) throw fail("expected minutes after midnight, 0 to 1439.");
      break;
    default:
      if (Math.abs(value) > 1e9) throw fail("expected a number within ±1e9.");
  }
  return value;
}

/** The member-local "today" of a member at the current time. */
export function todayOf(member: Member, clock: Clock): DayNumber {
  return localDay(clock(), member.timezone, member.dayStartOffsetHours);
}

/** Parses a real `YYYY-MM-DD` date. Throws `invalid_date`. */
function realDay(date: string): DayNumber {
  const day = parseDay(date);
  if (day === null) throw new AppError("invalid_date", `"${date}" is not a real YYYY-MM-DD date.`);
  return day;
}

/**
 * Parses a `YYYY-MM-DD` the member may write: a real date from 1900-01-01 up to the member's today
 * (values are observations; the future has none). Throws `invalid_date`.
 */
export function writableDay(date: string, today: DayNumber): DayNumber {
  const day = parseDay(date);
  if (day === null || day < parseDay("1900-01-01")!) {
    throw new AppError("invalid_date", `"${date}" is not a real YYYY-MM-DD date.`);
  }
  if (day > today) {
    throw new AppError(
      "invalid_date",
      `"${date}" is after the member's today (${formatDay(today)}).`,
    );
  }
  return day;
}

async function memberEntry(kv: Deno.Kv, memberId: string): Promise<Deno.KvEntry<Member>> {
  const entry = await kv.get<Member>(keys.member(memberId));
  if (!entry.value) throw new AppError("not_found", "The account no longer exists.");
  return entry as Deno.KvEntry<Member>;
}

/** Reads the columns entry (an empty list when none were created). */
async function columnsEntry(kv: Deno.Kv, memberId: string) {
  const entry = await kv.get<Column[]>(keys.columns(memberId));
  return { entry, columns: entry.value ?? [] };
}

/**
 * Adds the member's record-version bump and the coach's debounced job (lib/record/coach_schedule.ts:
 * in this same commit, never a run on the request) to the write's own atomic operation and
 * commits: one commit per record write, touching no key another member shares (issue #13).
 */
export async function commitRecordWrite(
  ctx: StoreContext,
  memberId: string,
  op: Deno.AtomicOperation,
  writes: "entry" | "other" = "other",
): Promise<boolean> {
  scheduleCoach(op, memberId, {
    now: ctx.clock(),
    debounceMs: ctx.coachDebounceMs ?? DEFAULT_DEBOUNCE_MS,
  });
  // An entry write counts itself in the list of changed days (`markChanged`); any other write in
  // `record_other_writes` (lib/record/record_snapshot.ts).
  if (writes === "other") bumpOtherWrite(op, memberId);
  else op.sum(keys.recordVersion(memberId), 1n);
  return (await op.commit()).ok;
}

/**
 * Adds the day to the record's list of changed days in a commit that writes its entry, checked
 * against the list as read (lib/record/record_snapshot.ts): a load reads listed days from the
 * entries, so a snapshot built before this write is never served for this day. Every single-day
 * entry write goes through here.
 */
function markChanged(
  op: Deno.AtomicOperation,
  changed: Deno.KvEntryMaybe<RecordChanges>,
  day: DayNumber,
) {
  return op.check(changed).set(changed.key, withChange(changed.value, day));
}

/**
 * Runs a read-modify-write until its checks pass (lib/foundation/kv_commit.ts: bounded, jittered backoff,
 * then `service_busy`); an attempt answers `undefined` when a concurrent write won.
 */
function withRetry<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  return withKvRetry(async () => (await attempt()) ?? RETRY);
}

/** The profile fields of a member, as `getProfile` and `exportRecord` report them. */
export function profileOf(member: Member): Profile {
  return {
    username: member.username,
    displayName: member.displayName,
    timezone: member.timezone,
    units: member.units,
    dayStartOffsetHours: member.dayStartOffsetHours,
    theme: themeOf(member),
    weekStartsOn: weekStartsOn(member),
    locale: localeOf(member),
    createdAt: member.createdAt,
  };
}

/** The member's profile. */
export async function getProfile(kv: Deno.Kv, memberId: string): Promise<Profile> {
  return profileOf((await memberEntry(kv, memberId)).value);
}

/** Changes display name, time zone, units, the day-start hour, or a preference of the web app. */
export function updateProfile(
  ctx: StoreContext,
  memberId: string,
  patch: z.infer<typeof ProfilePatch>,
): Promise<Profile> {
  return withRetry(async () => {
    const entry = await memberEntry(ctx.kv, memberId);
    const next: Member = { ...entry.value, ...patch };
    const ok = await commitRecordWrite(
      ctx,
      memberId,
      ctx.kv.atomic().check(entry).set(entry.key, next),
    );
    return ok ? profileOf(next) : undefined;
  });
}

/** The member's columns in display order, archived ones included. */
export async function listColumns(kv: Deno.Kv, memberId: string): Promise<Column[]> {
  return (await columnsEntry(kv, memberId)).columns;
}

/** Adds a column at the end. Throws `column_exists` or `too_many_columns`. */
export function createColumn(
  ctx: StoreContext,
  memberId: string,
  input: z.infer<typeof ColumnCreate>,
): Promise<Column> {
  const isScale = input.type === "scale";
  const column: Column = {
    key: input.key,
    label: input.label,
    type: input.type,
    unit: input.unit,
    scale_min: isScale ? input.scale_min ?? 1 : null,
    scale_max: isScale ? input.scale_max ?? 5 : null,
    direction: input.direction,
    daily_agg: input.daily_agg ?? DEFAULT_AGG[input.type],
    goal: input.goal,
    missing_policy: input.missing_policy,
    archived: false,
    ...groupOf(input.group),
  };
  checkScale(column);
  checkGoal(column);
  return withRetry(async () => {
    const { entry, columns } = await columnsEntry(ctx.kv, memberId);
    if (columns.some((c) => c.key === column.key)) {
      throw new AppError("column_exists", `A column "${column.key}" already exists.`);
    }
    if (columns.length >= MAX_COLUMNS) {
      throw new AppError("too_many_columns", `A member may have at most ${MAX_COLUMNS} columns.`);
    }
    const op = ctx.kv.atomic().check(entry).set(keys.columns(memberId), [...columns, column]);
    return (await commitRecordWrite(ctx, memberId, op)) ? column : undefined;
  });
}

/** The stored group field: absent for none, so columns without a group stay as they were. */
function groupOf(group: string | null | undefined): { group?: string } {
  return group ? { group } : {};
}

function columnIndex(columns: Column[], key: string): number {
  const i = columns.findIndex((c) => c.key === key);
  if (i < 0) throw new AppError("unknown_column", `No column has the key "${key}".`);
  return i;
}

/** A column change. */
export interface UpdateColumnOptions {
  ctx: StoreContext;
  memberId: string;
  key: string;
  patch: z.infer<typeof ColumnPatch> & { archived?: boolean };
}

/** Changes a column's metadata (never its key or type). */
export function updateColumn({ ctx, memberId, key, patch }: UpdateColumnOptions): Promise<Column> {
  return withRetry(async () => {
    const { entry, columns } = await columnsEntry(ctx.kv, memberId);
    const i = columnIndex(columns, key);
    const { group, ...rest } = patch;
    const next: Column = { ...columns[i], ...rest };
    if (group !== undefined) {
      delete next.group;
      Object.assign(next, groupOf(group));
    }
    if (next.type !== "scale") {
      next.scale_min = null;
      next.scale_max = null;
    }
    checkScale(next);
    checkGoal(next);
    const list = columns.with(i, next);
    const op = ctx.kv.atomic().check(entry).set(keys.columns(memberId), list);
    return (await commitRecordWrite(ctx, memberId, op)) ? next : undefined;
  });
}

function viewOf(day: DayNumber, entry: StoredEntry): EntryView {
  return { date: formatDay(day), values: entry.values, note: entry.note };
}

/** Entries to read. */
export interface GetEntriesOptions {
  kv: Deno.Kv;
  memberId: string;
  start: DayNumber;
  end: DayNumber;
}

/** Entries from `start` to `end` inclusive (≤ 366 days), oldest first. */
export async function getEntries(
  { kv, memberId, start, end }: GetEntriesOptions,
): Promise<EntryView[]> {
  if (end < start) throw new AppError("invalid_request", "end is before start.");
  if (end - start + 1 > 366) {
    throw new AppError("range_too_large", "A range may span at most 366 days.");
  }
  const out: EntryView[] = [];
  const iter = kv.list<StoredEntry>({
    start: keys.entry(memberId, start),
    end: keys.entry(memberId, end + 1),
  });
  for await (const e of iter) out.push(viewOf(e.key[2] as number, e.value));
  return out;
}

/** One day's values to save (upsert). */
export interface SaveEntryOptions {
  ctx: StoreContext;
  memberId: string;
  date: string;
  values: Record<string, DayValue | null>;
  note?: string | null;
  /**
   * The client's name for this one change (`Idempotency-Key`, draft-ietf-httpapi-idempotency-key-
   * header): the first save under it is applied, every later one answers that save's entry and
   * changes nothing — an offline queue replaying a request whose answer was lost (issue #24).
   */
  idempotencyKey?: string;
}

/** How long a change's idempotency key is remembered: longer than any offline queue waits. */
export const IDEMPOTENCY_KEY_TTL_MS = 30 * 24 * 3600_000;

/** What an idempotency key remembers: the entry its change produced. */
interface StoredIdempotent {
  entry: EntryView;
}

/**
 * Upserts one day: each given value replaces that column's value, `null` clears it, columns not
 * mentioned keep theirs; `note` replaces the note when sent (`null` clears). Committed with a check
 * on the day and on the columns, so a concurrent edit of either makes this retry, never lose data.
 * With an `idempotencyKey`, the key is written in the same commit and checked absent, so of two
 * saves with one key (a replay, on any instance) exactly one is applied.
 */
export function saveEntry(
  { ctx, memberId, date, values, note, idempotencyKey }: SaveEntryOptions,
): Promise<EntryView> {
  return withRetry(async () => {
    const key = keys.entry(memberId, realDay(date));
    const onceKey = idempotencyKey === undefined
      ? null
      : keys.idempotencyKey(memberId, idempotencyKey);
    // One round trip for all (issue #21): on a remote KV each read is a request to the
    // primary, so the day's key comes from the date as sent and "not after today" is checked
    // once the member's time zone is in hand.
    const wanted: Deno.KvKey[] = [
      keys.member(memberId),
      keys.columns(memberId),
      key,
      keys.recordChanges(memberId),
    ];
    if (onceKey) wanted.push(onceKey);
    const [member, columnsRead, current, changed, once] = await ctx.kv.getMany(wanted) as [
      Deno.KvEntryMaybe<Member>,
      Deno.KvEntryMaybe<Column[]>,
      Deno.KvEntryMaybe<StoredEntry>,
      Deno.KvEntryMaybe<RecordChanges>,
      Deno.KvEntryMaybe<StoredIdempotent> | undefined,
    ];
    if (!member.value) throw new AppError("not_found", "The account no longer exists.");
    if (once?.value) return once.value.entry;
    const day = writableDay(date, todayOf(member.value, ctx.clock));
    const byKey = new Map((columnsRead.value ?? []).map((c) => [c.key, c]));
    const next: StoredEntry = {
      values: { ...current.value?.values },
      note: current.value?.note ?? null,
      updatedAt: ctx.clock(),
    };
    for (const [columnKey, value] of Object.entries(values)) {
      const column = byKey.get(columnKey);
      if (!column) throw new AppError("unknown_column", `No column has the key "${columnKey}".`);
      if (value === null) delete next.values[columnKey];
      else next.values[columnKey] = validateValue(column, value);
    }
    if (note !== undefined) next.note = note;
    const op = markChanged(ctx.kv.atomic().check(current).check(columnsRead), changed, day);
    if (Object.keys(next.values).length === 0 && next.note === null) op.delete(key);
    else op.set(key, next);
    const view = viewOf(day, next);
    if (onceKey && once) {
      const remembered: StoredIdempotent = { entry: view };
      op.check(once).set(onceKey, remembered, { expireIn: IDEMPOTENCY_KEY_TTL_MS });
    }
    return (await commitRecordWrite(ctx, memberId, op, "entry")) ? view : undefined;
  });
}

/** A day to mark skipped. */
export interface SkipDayOptions {
  ctx: StoreContext;
  memberId: string;
  date: string;
  columnKeys?: string[];
  /** As for `saveEntry`: a replay under the same key changes nothing. */
  idempotencyKey?: string;
}

/** Marks a day as skipped ("excused") in the given columns, or in every active column. */
export async function skipDay(
  { ctx, memberId, date, columnKeys, idempotencyKey }: SkipDayOptions,
): Promise<EntryView> {
  const columns = await listColumns(ctx.kv, memberId);
  const targets = columnKeys ?? columns.filter((c) => !c.archived).map((c) => c.key);
  return await saveEntry({
    ctx,
    memberId,
    date,
    values: Object.fromEntries(targets.map((k) => [k, "skip" as const])),
    idempotencyKey,
  });
}

/** Deletes a day's entry (every column becomes missing). Idempotent. */
export function deleteEntry(
  ctx: StoreContext,
  memberId: string,
  date: string,
): Promise<{ date: string; deleted: boolean }> {
  return withRetry(async () => {
    const day = realDay(date);
    const [current, changed] = await ctx.kv.getMany<[StoredEntry, RecordChanges]>([
      keys.entry(memberId, day),
      keys.recordChanges(memberId),
    ]);
    if (current.value === null) return { date, deleted: false };
    const op = markChanged(ctx.kv.atomic().check(current), changed, day).delete(current.key);
    return (await commitRecordWrite(ctx, memberId, op, "entry"))
      ? { date, deleted: true }
      : undefined;
  });
}

/**
 * Every entry of a member, oldest first (export and record loading), 1,000 a round trip: the most
 * a remote KV returns per read (denokv's `MAX_READ_ENTRIES`, `KV_LIMITS.listBatch`). At the
 * default of 100 a three-year record took 11 sequential reads (issue #21).
 */
export async function allEntries(
  kv: Deno.Kv,
  memberId: string,
): Promise<[DayNumber, StoredEntry][]> {
  const out: [DayNumber, StoredEntry][] = [];
  const iter = kv.list<StoredEntry>(
    { prefix: keys.entriesOf(memberId) },
    { batchSize: KV_LIMITS.listBatch },
  );
  for await (const e of iter) out.push([e.key[2] as number, e.value]);
  return out;
}

/** `getMany`s in flight at once in `readEntries`: 500 keys a wave, three waves for three years. */
const READS_IN_FLIGHT = 50;

/**
 * The stored entries of the given days (absent days are left out). A `getMany` reads at most ten
 * keys (`KV_LIMITS.keysPerRead`); the reads go out together, `READS_IN_FLIGHT` at a time, since
 * one after the other they cost a round trip each: 110 for three years (issue #21).
 */
export async function readEntries(
  kv: Deno.Kv,
  memberId: string,
  days: DayNumber[],
): Promise<Map<DayNumber, StoredEntry>> {
  const out = new Map<DayNumber, StoredEntry>();
  const parts: DayNumber[][] = [];
  for (let i = 0; i < days.length; i += KV_LIMITS.keysPerRead) {
    parts.push(days.slice(i, i + KV_LIMITS.keysPerRead));
  }
  for (let i = 0; i < parts.length; i += READS_IN_FLIGHT) {
    await Promise.all(
      parts.slice(i, i + READS_IN_FLIGHT).map(async (part) => {
        const got = await kv.getMany<StoredEntry[]>(part.map((d) => keys.entry(memberId, d)));
        got.forEach((e, j) => e.value && out.set(part[j], e.value));
      }),
    );
  }
  return out;
}

/** What `writeEntries` commits: whole entries, and optionally the new column list. */
export interface EntryWrites {
  /** The record version read before the entries were read; the commit checks it. */
  versionEntry: Deno.KvEntryMaybe<Deno.KvU64>;
  entries: { day: DayNumber; entry: StoredEntry }[];
  /** Days whose entry is deleted in the same commit (a column's deletion emptied them). */
  deletedDays?: DayNumber[];
  /** New columns appended in the same commit, checked against the columns entry read. */
  columns?: { entry: Deno.KvEntryMaybe<Column[]>; next: Column[] };
}

/**
 * Writes many days (and new columns) in one atomic commit, checked against the record version read
 * before the entries were merged: either everything lands or nothing does. (Used by imports; the
 * caller keeps one commit within `KV_LIMITS`, lib/foundation/kv_limits.ts.)
 */
export async function writeEntries(
  ctx: StoreContext,
  memberId: string,
  writes: EntryWrites,
): Promise<boolean> {
  if (writes.columns && writes.columns.next.length > MAX_COLUMNS) {
    throw new AppError("too_many_columns", `A member may have at most ${MAX_COLUMNS} columns.`);
  }
  // A fresh operation per attempt: commitKv retries transient contention (issue #9).
  const build = () => {
    const op = ctx.kv.atomic().check(writes.versionEntry);
    // One mutation for any number of days: the next load rebuilds the snapshot from the entries
    // (lib/record/record_snapshot.ts), where a marker a day would double the commit.
    if (writes.entries.length > 0 || writes.deletedDays?.length) {
      op.delete(keys.recordSnapshot(memberId, 0));
    }
    if (writes.columns) {
      op.check(writes.columns.entry).set(keys.columns(memberId), writes.columns.next);
    }
    for (const { day, entry } of writes.entries) op.set(keys.entry(memberId, day), entry);
    for (const day of writes.deletedDays ?? []) op.delete(keys.entry(memberId, day));
    const versioned = bumpOtherWrite(op, memberId);
    return scheduleCoach(versioned, memberId, {
      now: ctx.clock(),
      debounceMs: ctx.coachDebounceMs ?? DEFAULT_DEBOUNCE_MS,
    });
  };
  return (await commitKv(build)).ok;
}

/** The columns entry as read (for checked bulk writes that add columns). */
export function readColumnsEntry(kv: Deno.Kv, memberId: string) {
  return kv.get<Column[]>(keys.columns(memberId));
}

/** Reads the member's record version entry (for checked bulk writes and caches). */
export function recordVersionEntry(kv: Deno.Kv, memberId: string) {
  return kv.get<Deno.KvU64>(keys.recordVersion(memberId));
}
