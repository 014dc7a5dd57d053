/**
 * Pauses (issue #25; uhabits#88, beaverhabits#147): "away from 12 to 19 August", for every column
 * or chosen ones. A paused day with nothing logged counts as skipped — for streaks, habit strength,
 * goals, the coach and every tool — so time away breaks no streak. Pauses are stored apart from
 * the entries (one `pauses` value per member, lib/foundation/kv_keys.ts) and never written into
 * them: deleting a pause gives the days back exactly as they were, and an export carries both.
 * Every write bumps the record version in its own commit (lib/record/store.ts), so record caches
 * on every instance see it on their next load.
 */

import { z } from "zod";
import { type DayNumber, formatDay, parseDay } from "../foundation/dates.ts";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import type { Member } from "../accounts/accounts.ts";
import { commitRecordWrite, type StoreContext, todayOf } from "./store.ts";
import type { Column, DayValue } from "./types.ts";

/** A member keeps at most this many pauses (bounds the one KV value; 100 is years of holidays). */
export const MAX_PAUSES = 100;
/** Longest pause, in days: a year, as the longest span one tool call covers. */
export const MAX_PAUSE_DAYS = 366;
/** How far ahead a pause may end: a trip is planned months ahead, not decades. */
export const MAX_PAUSE_AHEAD_DAYS = 366;

/** A pause as stored: inclusive member-local days; `columns` null means every column. */
export interface StoredPause {
  id: string;
  start: DayNumber;
  end: DayNumber;
  columns: string[] | null;
}

/** What the analytics read: a pause's days and columns (`MemberRecord.pauses`). */
export type PauseSpan = Omit<StoredPause, "id">;

/** A pause as the API answers it. */
export const PauseView = z.object({
  id: z.string(),
  start: z.iso.date(),
  end: z.iso.date(),
  columns: z.array(z.string()).nullable().meta({
    description: "The paused columns' keys, or null for every column (also ones added later).",
  }),
}).strict();

/** A pause to create: inclusive dates, and the columns (absent or null: every column). */
export const PauseInput = z.object({
  start: z.string().max(40),
  end: z.string().max(40),
  columns: z.array(z.string().max(40)).min(1).max(64).nullable().optional(),
}).strict();

export type PauseViewOf = z.infer<typeof PauseView>;

function viewOf(p: StoredPause): PauseViewOf {
  return { id: p.id, start: formatDay(p.start), end: formatDay(p.end), columns: p.columns };
}

function dayOf(text: string, field: string): DayNumber {
  const day = parseDay(text);
  if (day === null || day < parseDay("1900-01-01")!) {
    throw new AppError("invalid_date", `${field} "${text}" is not a real YYYY-MM-DD date.`);
  }
  return day;
}

/** Checks one pause against the member's today and columns; throws `invalid_date`/`unknown_column`. */
function checkedPause(
  input: z.infer<typeof PauseInput>,
  today: DayNumber,
  columns: Column[],
): Omit<StoredPause, "id"> {
  const start = dayOf(input.start, "start"), end = dayOf(input.end, "end");
  if (end < start) throw new AppError("invalid_date", `end (${input.end}) is before start.`);
  if (end - start + 1 > MAX_PAUSE_DAYS) {
    throw new AppError("invalid_date", `A pause spans at most ${MAX_PAUSE_DAYS} days.`);
  }
  if (end > today + MAX_PAUSE_AHEAD_DAYS) {
    throw new AppError(
      "invalid_date",
      `A pause ends at most ${MAX_PAUSE_AHEAD_DAYS} days after today (${formatDay(today)}).`,
    );
  }
  const known = new Set(columns.map((c) => c.key));
  const unknown = (input.columns ?? []).find((k) => !known.has(k));
  if (unknown !== undefined) {
    throw new AppError("unknown_column", `No column has the key "${unknown.slice(0, 40)}".`);
  }
  const chosen = input.columns ? [...new Set(input.columns)] : null;
  return { start, end, columns: chosen };
}

/** Newest start first, then by end: the order the page and the API list them in. */
function ordered(pauses: StoredPause[]): StoredPause[] {
  return pauses.toSorted((a, b) => b.start - a.start || b.end - a.end);
}

/** The member's pauses, newest first. */
export async function listPauses(kv: Deno.Kv, memberId: string): Promise<PauseViewOf[]> {
  const got = await kv.get<StoredPause[]>(keys.pauses(memberId));
  return ordered(got.value ?? []).map(viewOf);
}

/** Reads what a pause write checks: the member, the columns and the pauses. */
async function readForWrite(kv: Deno.Kv, memberId: string) {
  const [member, columns, pauses] = await kv.getMany<[Member, Column[], StoredPause[]]>([
    keys.member(memberId),
    keys.columns(memberId),
    keys.pauses(memberId),
  ]);
  if (!member.value) throw new AppError("not_found", "The account no longer exists.");
  return { member: member.value, columns, pauses };
}

/** Commits a new pause list, checked against what was read (a concurrent write retries). */
async function commitPauses(
  ctx: StoreContext,
  memberId: string,
  read: Awaited<ReturnType<typeof readForWrite>>,
  next: StoredPause[],
): Promise<boolean> {
  const op = ctx.kv.atomic().check(read.columns).check(read.pauses);
  if (next.length === 0) op.delete(keys.pauses(memberId));
  else op.set(keys.pauses(memberId), next);
  return await commitRecordWrite(ctx, memberId, op);
}

/** Adds a pause. Throws `invalid_date`, `unknown_column`, or `invalid_request` past `MAX_PAUSES`. */
export function createPause(
  ctx: StoreContext,
  memberId: string,
  input: z.infer<typeof PauseInput>,
): Promise<PauseViewOf> {
  return withKvRetry(async () => {
    const read = await readForWrite(ctx.kv, memberId);
    const pauses = read.pauses.value ?? [];
    if (pauses.length >= MAX_PAUSES) {
      throw new AppError("invalid_request", `A member keeps at most ${MAX_PAUSES} pauses.`);
    }
    const today = todayOf(read.member, ctx.clock);
    const pause = {
      id: crypto.randomUUID(),
      ...checkedPause(input, today, read.columns.value ?? []),
    };
    const ok = await commitPauses(ctx, memberId, read, [...pauses, pause]);
    return ok ? viewOf(pause) : RETRY;
  });
}

/** Deletes a pause by id; its days count as before. Throws `not_found`. */
export function deletePause(
  ctx: StoreContext,
  memberId: string,
  id: string,
): Promise<PauseViewOf> {
  return withKvRetry(async () => {
    const read = await readForWrite(ctx.kv, memberId);
    const pauses = read.pauses.value ?? [];
    const gone = pauses.find((p) => p.id === id);
    if (!gone) throw new AppError("not_found", "No pause has that id.");
    const ok = await commitPauses(ctx, memberId, read, pauses.filter((p) => p !== gone));
    return ok ? viewOf(gone) : RETRY;
  });
}

/**
 * Replaces the member's pauses with `inputs` (a JSON import of our export: the `moving` lane calls
 * it after its entries are in). Each is checked as `createPause` checks one; all or nothing.
 */
export function writePauses(
  ctx: StoreContext,
  memberId: string,
  inputs: z.infer<typeof PauseInput>[],
): Promise<PauseViewOf[]> {
  if (inputs.length > MAX_PAUSES) {
    throw new AppError("invalid_request", `A member keeps at most ${MAX_PAUSES} pauses.`);
  }
  return withKvRetry(async () => {
    const read = await readForWrite(ctx.kv, memberId);
    const today = todayOf(read.member, ctx.clock);
    const next = inputs.map((input) => ({
      id: crypto.randomUUID(),
      ...checkedPause(input, today, read.columns.value ?? []),
    }));
    const ok = await commitPauses(ctx, memberId, read, next);
    return ok ? ordered(next).map(viewOf) : RETRY;
  });
}

/** Whether `day` is paused for column `key`. */
export function isPaused(
  pauses: readonly PauseSpan[] | undefined,
  key: string,
  day: DayNumber,
): boolean {
  return (pauses ?? []).some((p) =>
    day >= p.start && day <= p.end && (p.columns === null || p.columns.includes(key))
  );
}

/** The paused days of column `key` up to `today`, ascending. */
function pausedDaysOf(pauses: readonly PauseSpan[], key: string, today: DayNumber): DayNumber[] {
  const days = new Set<DayNumber>();
  for (const p of pauses) {
    if (p.columns !== null && !p.columns.includes(key)) continue;
    for (let d = p.start; d <= Math.min(p.end, today); d++) days.add(d);
  }
  return [...days].sort((a, b) => a - b);
}

/**
 * The record's values with every paused day up to `today` that has nothing logged read as
 * `"skip"`: the one place pauses enter the analytics, so every tool, the coach and the pages treat
 * a paused day exactly as an explicit skip (domain-anchors §3.3: skip days are neutral). A logged
 * value wins over a pause. Days after `today` are left alone: the future has no observations, and
 * a skip there would move a column's last day past today.
 */
export function withPauses(
  values: ReadonlyMap<string, ReadonlyMap<DayNumber, DayValue>>,
  columns: readonly Column[],
  pauses: readonly PauseSpan[],
  today: DayNumber,
): ReadonlyMap<string, ReadonlyMap<DayNumber, DayValue>> {
  if (pauses.length === 0) return values;
  const out = new Map(values);
  for (const column of columns) {
    const paused = pausedDaysOf(pauses, column.key, today);
    if (paused.length === 0) continue;
    const base = values.get(column.key) ?? new Map<DayNumber, DayValue>();
    const merged: [DayNumber, DayValue][] = [...base];
    for (const d of paused) if (!base.has(d)) merged.push([d, "skip"]);
    // A Map iterates in insertion order: ascending days, as the stored series does.
    out.set(column.key, new Map(merged.sort((a, b) => a[0] - b[0])));
  }
  return out;
}
