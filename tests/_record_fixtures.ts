/**
 * Members of realistic size for the cache tests (issue #22): a year of eight columns with short
 * notes, or three years of twelve with journal entries, a third of them beyond Latin-1 (stored by
 * V8 as two-byte strings). Written through the store's own functions (registration, columns, bulk
 * entry writes) and deterministic from a seed, in commits well inside Deno KV's limits.
 */

import type { Clock } from "../lib/foundation/clock.ts";
import type { DayNumber } from "../lib/foundation/dates.ts";
import { registerMember } from "../lib/accounts/accounts.ts";
import { createApiToken } from "../lib/accounts/api_tokens.ts";
import {
  ColumnCreate,
  createColumn,
  recordVersionEntry,
  type StoreContext,
  type StoredEntry,
  writeEntries,
} from "../lib/record/store.ts";
import type { DayValue } from "../lib/record/types.ts";
import { mulberry32 } from "../lib/sandbox/synthetic_member.ts";

/** The shape of a fixture member's history. */
export interface HistoryShape {
  days: number;
  columns: number;
  /** Share of days with a journal note of 100–900 characters (the rest: none). */
  journals: number;
}

/** A year of eight columns, short notes on a tenth of the days. */
export const ONE_YEAR: HistoryShape = { days: 365, columns: 8, journals: 0.1 };
/** Three years of twelve columns, a journal on more than half of the days. */
export const THREE_YEARS: HistoryShape = { days: 1095, columns: 12, journals: 0.55 };

const SENTENCES = [
  "Long walk by the river, slept well after.",
  "Work deadline, stressed but done; early night.",
  "Couldn’t sleep until late, kept thinking about tomorrow’s meeting. 🌙",
  "Σήμερα ήταν ήσυχη μέρα.",
  "Rain all day. Stayed in, cooked soup and read two chapters.",
];

/** Column kinds cycled through: integer, fractional, yes/no and scale values. */
const KINDS = [
  { type: "integer", value: (u: number) => Math.round(2000 + 12000 * u) },
  { type: "number", value: (u: number) => Math.round((5.5 + 3 * u) * 4) / 4 },
  { type: "boolean", value: (u: number) => u < 0.5 },
  { type: "scale", value: (u: number) => 1 + Math.floor(u * 5) },
] as const;

/** A note of about `length` characters; two-byte when `wide` (the sentences beyond Latin-1). */
function noteOf(next: () => number, length: number, wide: boolean): string {
  const pool = wide ? SENTENCES.slice(2, 4) : [SENTENCES[0], SENTENCES[1], SENTENCES[4]];
  let note = "";
  while (note.length < length) note += pool[Math.floor(next() * pool.length)] + " ";
  return note.trim();
}

/** The entries of `shape` ending at `lastDay`, from `seed`. */
export function historyOf(shape: HistoryShape, seed: number, lastDay: DayNumber, now: number) {
  const next = mulberry32(seed);
  const out: { day: DayNumber; entry: StoredEntry }[] = [];
  for (let i = 0; i < shape.days; i++) {
    const values: Record<string, DayValue> = {};
    for (let c = 0; c < shape.columns; c++) {
      if (next() < 0.1) continue;
      values[`c${c}`] = KINDS[c % KINDS.length].value(next());
    }
    const u = next();
    const note = u < shape.journals
      ? noteOf(next, 100 + next() * 800, u < shape.journals / 3)
      : null;
    out.push({ day: lastDay - shape.days + 1 + i, entry: { values, note, updatedAt: now } });
  }
  return out;
}

/**
 * Registers `username`, writes `shape`'s columns and history, and mints a read API token for the
 * member's agent (MCP `tools/call`).
 */
export async function buildMember(
  kv: Deno.Kv,
  clock: Clock,
  options: { username: string; shape: HistoryShape; seed: number; lastDay: DayNumber },
): Promise<{ memberId: string; token: string }> {
  const { memberId } = await registerMember(
    { kv, clock, passwordIterations: 1_000 },
    { username: options.username, password: "a long passphrase" },
  );
  const ctx: StoreContext = { kv, clock };
  for (let c = 0; c < options.shape.columns; c++) {
    const { type } = KINDS[c % KINDS.length];
    await createColumn(ctx, memberId, ColumnCreate.parse({ key: `c${c}`, label: `C${c}`, type }));
  }
  const entries = historyOf(options.shape, options.seed, options.lastDay, clock());
  // 150 days a commit: under 1,000 mutations and 800 KiB even with every day a long journal.
  for (let i = 0; i < entries.length; i += 150) {
    const versionEntry = await recordVersionEntry(kv, memberId);
    const part = entries.slice(i, i + 150);
    if (!(await writeEntries(ctx, memberId, { versionEntry, entries: part }))) {
      throw new Error("fixture: a history part did not commit");
    }
  }
  const { token } = await createApiToken({ kv, clock, memberId, name: "agent", scopes: ["read"] });
  return { memberId, token };
}
