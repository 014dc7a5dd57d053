/**
 * Real-sized fixtures (issue #19): one member with three years of twelve columns, and an instance
 * of a thousand members with every kind of credential. They are written through the project's own
 * store functions (registration, columns, bulk entry writes, API tokens, OAuth registration, codes
 * and grants), so what they hold is exactly what the service writes — only faster than HTTP.
 *
 * The record's contents (values, notes, skips, gaps) follow a seeded PRNG and are the same on
 * every run; ids and secrets are minted by the real functions (crypto-random), so they differ.
 * Each commit stays within the limits of tests/_kv_limits.ts, so the fixtures build on a limited
 * KV as well as on a raw one.
 */

import { type Clock, manualClock } from "../lib/foundation/clock.ts";
import { type DayNumber, formatDay, parseDay } from "../lib/foundation/dates.ts";
import { keys, rateLimitCounterId, rateLimitSweepAt } from "../lib/foundation/kv_keys.ts";
import { type AccountContext, registerMember } from "../lib/accounts/accounts.ts";
import { createApiToken } from "../lib/accounts/api_tokens.ts";
import { registerClient } from "../lib/oauth/clients.ts";
import { exchangeAuthorizationCode, issueAuthorizationCode } from "../lib/oauth/grants.ts";
import { defaultMcpResource, OAUTH_SCOPE } from "../lib/oauth/metadata.ts";
import { s256 } from "../lib/foundation/secrets.ts";
import { keySize, KV_LIMITS, valueSize } from "../lib/foundation/kv_limits.ts";
import { RATE_LIMIT_POLICIES } from "../lib/policy/rate_limit.ts";
import {
  ColumnCreate,
  createColumn,
  listColumns,
  readColumnsEntry,
  recordVersionEntry,
  type StoreContext,
  type StoredEntry,
  writeEntries,
} from "../lib/record/store.ts";
import type { Column, DayValue } from "../lib/record/types.ts";
import { mulberry32 } from "../lib/sandbox/synthetic_member.ts";
import type { z } from "zod";

/** The instant the fixtures are built at (matches `manualClock()`'s default start). */
export const FIXTURE_NOW = Date.UTC(2026, 10, 22, 12);
/** Member-local today of the fixtures (UTC members). */
export const FIXTURE_TODAY: DayNumber = parseDay("2026-11-22")!;
/** Days of the three-year member's history (three years). */
export const THREE_YEAR_DAYS = 1095;
/** Password of every fixture member (PBKDF2 at the test work factor). */
export const FIXTURE_PASSWORD = "a long passphrase";
/** Base URL the fixtures' OAuth grants are bound to (testConfig's). */
export const FIXTURE_BASE_URL = "http://localhost:8000";

/** A fixture member as a client holds it. */
export interface FixtureMember {
  memberId: string;
  username: string;
  password: string;
  sessionToken: string;
  /** A read API token (`rt_ro_…`), e.g. for MCP tools. */
  token: string;
  /** An OAuth access token and the refresh token of the same grant. */
  accessToken: string;
  refreshToken: string;
  clientId: string;
}

/** The three-year member: credentials plus what was written. */
export interface ThreeYearMember extends FixtureMember {
  columns: Column[];
  /** Days with an entry (gaps excluded). */
  entryDays: number;
  firstDay: string;
  lastDay: string;
}

/** Options of `buildThreeYearMember`. */
export interface ThreeYearOptions {
  seed?: number;
  username?: string;
  clock?: Clock;
  passwordIterations?: number;
}

/** The twelve columns: every starter kind (number, integer, scale, yes/no, minutes, time of day). */
export const THREE_YEAR_COLUMNS = [
  { key: "sleep_hours", label: "Sleep", type: "number", unit: "h", direction: "higher_better" },
  { key: "steps", label: "Steps", type: "integer", unit: "steps", direction: "higher_better" },
  { key: "mood", label: "Mood", type: "scale", scale_min: 1, scale_max: 5 },
  { key: "energy", label: "Energy", type: "scale", scale_min: 1, scale_max: 10 },
  {
    key: "workout",
    label: "Workout",
    type: "boolean",
    direction: "higher_better",
    goal: { op: "true", value: null, per: "week", times: 3 },
    missing_policy: "breaks",
  },
  { key: "meditation_min", label: "Meditation", type: "duration_min", unit: "min" },
  { key: "water_glasses", label: "Water", type: "integer", unit: "glasses" },
  { key: "weight", label: "Weight", type: "number", unit: "kg", direction: "lower_better" },
  { key: "bedtime", label: "Bedtime", type: "time_of_day" },
  { key: "wake_time", label: "Wake time", type: "time_of_day" },
  { key: "medication", label: "Medication", type: "boolean", missing_policy: "breaks" },
  { key: "resting_hr", label: "Resting HR", type: "integer", unit: "bpm" },
] as const;

export const NOTES = [
  "Slept badly, neighbours again.",
  'Long walk by the river; "best day this month".',
  "Headache in the afternoon, skipped coffee",
  "Visited Mum, ate too much cake",
  "Travel day\nflight delayed two hours",
  "Ran 5 km, legs sore, happy",
  "Quiet day; read, cooked, early night.",
  "Work deadline — stressed, but done",
  "Rain all day. Stayed in; board games with friends.",
  "New shoes, blisters (worth it?)",
];

/**
 * Journal sentences as a phone types them: typographic apostrophes, an emoji, now and then a line
 * in Greek, Russian or Japanese. One character beyond Latin-1 makes V8 (Deno KV's value encoding)
 * store the whole note as a two-byte string: about twice its length, where UTF-8 (the file an
 * import reads) needs little more than its length.
 */
const JOURNAL = [
  "Couldn’t sleep until late, kept thinking about tomorrow’s meeting.",
  "Long walk by the river with Sam; we didn’t talk about work at all.",
  "Felt rested for once; the new evening routine seems to help. 🌙",
  "Tried the 20-minute meditation again, mind wandered a lot, that’s fine.",
  "Rainy day, stayed in, cooked soup and read two chapters.",
  "Σήμερα ήταν ήσυχη μέρα.",
  "Позвонил старый друг.",
  "Gym at 7, legs still sore from Tuesday’s run. 💪",
  "今日は静かだった。",
  "Mum’s birthday dinner, ate far too much cake and didn’t regret it.",
];

/** A journal note of about `length` characters (140–1,090), from `next`. */
function journalOf(next: () => number, length: number): string {
  const out: string[] = [];
  let n = 0;
  while (n < length) {
    const sentence = JOURNAL[Math.floor(next() * JOURNAL.length)];
    out.push(sentence);
    n += sentence.length + 1;
  }
  return out.join(" ");
}

/** A value for one column on one day, drawn from `next` (always the same number of draws). */
export function valueOf(key: string, next: () => number, dayIndex: number): DayValue {
  const u = next();
  const trend = dayIndex / THREE_YEAR_DAYS;
  switch (key) {
    case "sleep_hours":
      return Math.round((5.5 + 3 * u) * 4) / 4;
    case "steps":
      return Math.round(2000 + 12000 * u);
    case "mood":
      return 1 + Math.floor(u * 5);
    case "energy":
      return 1 + Math.floor(u * 10);
    case "workout":
      return u < 0.45;
    case "meditation_min":
      return Math.round(u * 30);
    case "water_glasses":
      return Math.floor(u * 10);
    case "weight":
      return Math.round((82 - 6 * trend + 2 * u) * 10) / 10;
    case "bedtime":
      return (22 * 60 + Math.floor(u * 180)) % 1440;
    case "wake_time":
      return 6 * 60 + Math.floor(u * 120);
    case "medication":
      return u < 0.93;
    default:
      return Math.round(52 + 16 * u);
  }
}

/** Gaps of the history (day index ranges with no entry at all): holidays, a lost phone, a move. */
const GAPS = [[120, 133], [400, 402], [610, 640], [901, 907], [1050, 1052]] as const;

/** The entries of the three-year history, oldest first; deterministic from `seed`. */
export function threeYearEntries(seed: number, lastDay: DayNumber, now: number) {
  const first = lastDay - THREE_YEAR_DAYS + 1;
  const streams = THREE_YEAR_COLUMNS.map((_, i) => mulberry32(seed + 7919 * i));
  const extra = mulberry32(seed + 7919 * THREE_YEAR_COLUMNS.length);
  const out: { day: DayNumber; entry: StoredEntry }[] = [];
  for (let i = 0; i < THREE_YEAR_DAYS; i++) {
    const drawn = THREE_YEAR_COLUMNS.map((c, j) => valueOf(c.key, streams[j], i));
    const [logged, skip, noteDraw, length] = [extra(), extra(), extra(), extra()];
    // The journal draws a fixed number of times a day, so the days after one never reshuffle.
    const journal = journalOf(mulberry32(seed ^ (i * 2654435761)), 140 + length * 950);
    if (GAPS.some(([a, b]) => i >= a && i <= b)) continue;
    const values: Record<string, DayValue> = {};
    THREE_YEAR_COLUMNS.forEach((c, j) => {
      // Each column is logged on most days; some days one is forgotten, some are excused.
      if ((logged * (j + 3)) % 1 < 0.12) return;
      values[c.key] = skip < 0.04 && j % 3 === 0 ? "skip" : drawn[j];
    });
    // A short note on a fifth of the days, a journal entry on more than half of them.
    const note = noteDraw < 0.2
      ? NOTES[Math.floor(noteDraw * 50)]
      : noteDraw < 0.75
      ? journal
      : null;
    out.push({ day: first + i, entry: { values, note, updatedAt: now } });
  }
  return out;
}

/** Writes entries through `writeEntries` (the bulk store write) in parts of `perCommit` days. */
export async function writeHistory(
  ctx: StoreContext,
  memberId: string,
  entries: { day: DayNumber; entry: StoredEntry }[],
  perCommit = 200,
): Promise<void> {
  for (let i = 0; i < entries.length; i += perCommit) {
    const versionEntry = await recordVersionEntry(ctx.kv, memberId);
    const part = entries.slice(i, i + perCommit);
    if (!(await writeEntries(ctx, memberId, { versionEntry, entries: part }))) {
      throw new Error("fixture: a history part did not commit");
    }
  }
}

/** What one commit may hold, a little under the strictest KV's limits (tests/_kv_limits.ts). */
const PART = {
  mutations: KV_LIMITS.mutationsPerAtomic - 10,
  bytes: KV_LIMITS.atomicBytes - 16_384,
  keyBytes: KV_LIMITS.atomicKeyBytes - 2_048,
};

/**
 * An upper bound of an entry's V8-serialised size, without serialising it (that doubled the
 * build's CPU): V8 spends at most three bytes on a JSON character (a one-character key costs 3
 * bytes for its 4 in `"k":`, a double 9 bytes for its 3 in `7.5`, a two-byte string 2 bytes a
 * character), plus the object's header.
 */
function entryBound(entry: StoredEntry): number {
  return 3 * JSON.stringify(entry).length + 32;
}

/**
 * Splits a history into the fewest commits the KV limits allow (a year of short days is one),
 * bounding each entry's key and value size as the KV measures them; `first` is what the first
 * commit holds besides entries (the columns).
 */
export function packHistory<T extends { day: DayNumber; entry: StoredEntry }>(
  memberId: string,
  entries: T[],
  first = 0,
): T[][] {
  const parts: T[][] = [];
  let [part, bytes, keyBytes]: [T[], number, number] = [[], first, 0];
  for (const e of entries) {
    const key = keySize(keys.entry(memberId, e.day));
    const size = key + entryBound(e.entry);
    const full = part.length + 1 > PART.mutations || bytes + size > PART.bytes ||
      keyBytes + key > PART.keyBytes;
    if (full) {
      parts.push(part);
      [part, bytes, keyBytes] = [[], 0, 0];
    }
    part.push(e);
    bytes += size;
    keyBytes += key;
  }
  if (part.length) parts.push(part);
  return parts;
}

/**
 * Writes a new member's columns and history through `writeEntries` (the bulk store write an
 * import uses): the columns ride in the first commit, as an import's new columns do, and the
 * history is packed into the fewest commits the KV limits allow. One commit for a year of eight
 * columns where `createColumn` per column and parts of 200 days took ten (issue #22: the build
 * of the 10,000-member bench waits on commits). `columns` is what `createColumn` gives for the
 * same inputs (`columnsOf`).
 */
export async function writeRecord(
  ctx: StoreContext,
  memberId: string,
  columns: Column[],
  entries: { day: DayNumber; entry: StoredEntry }[],
): Promise<void> {
  const columnsEntry = await readColumnsEntry(ctx.kv, memberId);
  const parts = packHistory(memberId, entries, valueSize(columns));
  for (const [i, part] of (parts.length ? parts : [[]]).entries()) {
    const versionEntry = await recordVersionEntry(ctx.kv, memberId);
    const withColumns = i === 0 ? { columns: { entry: columnsEntry, next: columns } } : {};
    if (!(await writeEntries(ctx, memberId, { versionEntry, entries: part, ...withColumns }))) {
      throw new Error("fixture: a record part did not commit");
    }
  }
}

/**
 * The columns `createColumn` makes of `inputs`, made by `createColumn` itself on a scratch KV:
 * what a member who added them one by one holds.
 */
export async function columnsOf(inputs: readonly z.input<typeof ColumnCreate>[]) {
  await using kv = await Deno.openKv(":memory:");
  const ctx: StoreContext = { kv, clock: manualClock(FIXTURE_NOW) };
  for (const input of inputs) await createColumn(ctx, "template", ColumnCreate.parse(input));
  return await listColumns(kv, "template");
}

/** Registers a member and mints a session, an API token and an OAuth grant with refresh token. */
export async function registerFixtureMember(
  accounts: AccountContext,
  username: string,
): Promise<FixtureMember> {
  const { kv, clock } = accounts;
  const signed = await registerMember(accounts, { username, password: FIXTURE_PASSWORD });
  const { token } = await createApiToken({
    kv,
    clock,
    memberId: signed.memberId,
    name: "fixture",
    scopes: ["read"],
  });
  // Registration is anonymous (RFC 7591): nothing in the client names the member.
  const redirectUri = "http://127.0.0.1:4000/callback";
  const client = await registerClient(kv, clock, {
    client_name: "Fixture app",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
  });
  const verifier = `verifier-${username}-`.padEnd(43, "x");
  const resource = defaultMcpResource(FIXTURE_BASE_URL);
  const code = await issueAuthorizationCode({
    kv,
    clock,
    memberId: signed.memberId,
    request: {
      clientId: client.clientId,
      clientName: client.clientName,
      redirectUri,
      codeChallenge: s256(verifier),
      scope: OAUTH_SCOPE,
      resource,
      state: null,
    },
  });
  const tokens = await exchangeAuthorizationCode({
    kv,
    clock,
    params: { code, codeVerifier: verifier, clientId: client.clientId, redirectUri, resource },
    clientAllowsRefresh: true,
    // as the token endpoint does for a registered client: its first grant keeps it (the
    // registration would expire a day after the fixture's clock, refusing every refresh)
    keepClient: true,
  });
  return {
    memberId: signed.memberId,
    username,
    password: FIXTURE_PASSWORD,
    sessionToken: signed.sessionToken,
    token,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token!,
    clientId: client.clientId,
  };
}

/**
 * Rate-limit counters of the member's policies (current window), as the limiter's flush sums
 * them, with their sweep keys (lib/policy/rate_limit.ts).
 */
export async function writeCounters(kv: Deno.Kv, now: number, subject: string, n: number) {
  await writeCountersOf(kv, now, [[subject, n]]);
}

/**
 * `writeCounters` for several members, as many to a commit as the KV limits allow (the limiter's
 * flush, too, sums many subjects' counts in one commit).
 */
export async function writeCountersOf(kv: Deno.Kv, now: number, counts: [string, number][]) {
  const policies = Object.values(RATE_LIMIT_POLICIES).filter((p) => p.keyedBy.startsWith("member"));
  const perCommit = Math.floor(PART.mutations / (2 * policies.length));
  for (let i = 0; i < counts.length; i += perCommit) {
    const op = kv.atomic();
    for (const [subject, n] of counts.slice(i, i + perCommit)) {
      for (const policy of policies) {
        const index = Math.floor(now / (policy.w * 1000));
        op.sum(keys.rateLimitWindow(policy.name, subject, index), BigInt(n));
        sweepKey(op, policy.name, subject, index, policy.w);
      }
    }
    if (!(await op.commit()).ok) throw new Error("fixture: counters did not commit");
  }
}

/** The sweep key the limiter's first commit of a counter sets beside it. */
function sweepKey(
  op: Deno.AtomicOperation,
  policy: string,
  subject: string,
  index: number,
  w: number,
) {
  const at = rateLimitSweepAt(index, w);
  op.set(keys.rateLimitSweep(at, rateLimitCounterId(policy, subject, index)), true);
}

async function createColumns(ctx: StoreContext, memberId: string): Promise<Column[]> {
  const out: Column[] = [];
  for (const input of THREE_YEAR_COLUMNS) {
    out.push(await createColumn(ctx, memberId, ColumnCreate.parse(input)));
  }
  return out;
}

/**
 * One member with three years (1,095 days) of twelve columns: entries with forgotten values,
 * skips, notes (commas, quotes, a newline) and gaps of up to a month. More than half of the days
 * carry a journal entry of up to 1,090 characters as a phone types them (typographic apostrophes,
 * emoji): its own CSV export stays under the 512 KiB an import accepts, while a commit of 900 of
 * its days holds more than 819,200 bytes of V8-serialised values. Also holds a session, an
 * API token, an OAuth grant and rate-limit counters. Today is `FIXTURE_TODAY` (the clock's day).
 */
export async function buildThreeYearMember(
  kv: Deno.Kv,
  options: ThreeYearOptions = {},
): Promise<ThreeYearMember> {
  const clock = options.clock ?? manualClock(FIXTURE_NOW);
  const accounts = { kv, clock, passwordIterations: options.passwordIterations ?? 1_000 };
  const member = await registerFixtureMember(accounts, options.username ?? "three_years");
  const ctx: StoreContext = { kv, clock };
  const columns = await createColumns(ctx, member.memberId);
  const entries = threeYearEntries(options.seed ?? 19, FIXTURE_TODAY, clock());
  await writeHistory(ctx, member.memberId, entries);
  await writeCounters(kv, clock(), member.memberId, 7);
  return {
    ...member,
    columns,
    entryDays: entries.length,
    firstDay: formatDay(entries[0].day),
    lastDay: formatDay(entries[entries.length - 1].day),
  };
}

/** Options of `buildInstance`. */
export interface InstanceOptions {
  /** How many members (default 1,000). */
  members?: number;
  /** Days of entries per member (default 5, ending today). */
  days?: number;
  seed?: number;
  clock?: Clock;
  usernamePrefix?: string;
  passwordIterations?: number;
  /** Members built at once (default 16). */
  concurrency?: number;
}

/** A thousand-member instance as its members hold it. */
export interface Instance {
  members: FixtureMember[];
}

/** A few days of two columns for one member, from `next`. */
async function smallRecord(ctx: StoreContext, memberId: string, next: () => number, days: number) {
  for (const input of THREE_YEAR_COLUMNS.slice(0, 3)) {
    await createColumn(ctx, memberId, ColumnCreate.parse(input));
  }
  const entries = Array.from({ length: days }, (_, i) => ({
    day: FIXTURE_TODAY - i,
    entry: {
      values: {
        sleep_hours: valueOf("sleep_hours", next, i),
        steps: valueOf("steps", next, i),
        mood: valueOf("mood", next, i),
      },
      note: next() < 0.3 ? NOTES[i % NOTES.length] : null,
      updatedAt: ctx.clock(),
    },
  })).reverse();
  await writeHistory(ctx, memberId, entries);
}

/**
 * An instance of `members` members (default 1,000), each with three columns and some days of
 * entries, a session, an API token, an OAuth client and grant (access and refresh token, a spent
 * code) and rate-limit counters; plus per-address counters of the IP-keyed policies.
 */
export async function buildInstance(kv: Deno.Kv, options: InstanceOptions = {}): Promise<Instance> {
  const clock = options.clock ?? manualClock(FIXTURE_NOW);
  const count = options.members ?? 1_000;
  const prefix = options.usernamePrefix ?? "member";
  const accounts = { kv, clock, passwordIterations: options.passwordIterations ?? 1_000 };
  const ctx: StoreContext = { kv, clock };
  const seed = options.seed ?? 1_000;
  const one = async (i: number) => {
    const member = await registerFixtureMember(accounts, `${prefix}${String(i).padStart(5, "0")}`);
    await smallRecord(ctx, member.memberId, mulberry32(seed + i), options.days ?? 5);
    await writeCounters(kv, clock(), member.memberId, 1 + (i % 50));
    return member;
  };
  const members: FixtureMember[] = [];
  const concurrency = options.concurrency ?? 16;
  for (let i = 0; i < count; i += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, count - i) }, (_, j) => one(i + j));
    members.push(...await Promise.all(batch));
  }
  await ipCounters(kv, clock(), Math.ceil(count / 10));
  return { members };
}

/** Counters of the IP-keyed policies for `n` addresses (ten per commit). */
async function ipCounters(kv: Deno.Kv, now: number, n: number) {
  for (let i = 0; i < n; i += 10) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(n, i + 10); j++) {
      const ip = `203.0.${j >> 8}.${j & 255}`;
      for (const policy of ["auth", "public", "oauth"] as const) {
        const index = Math.floor(now / (RATE_LIMIT_POLICIES[policy].w * 1000));
        op.sum(keys.rateLimitWindow(policy, ip, index), 1n);
        sweepKey(op, policy, ip, index, RATE_LIMIT_POLICIES[policy].w);
      }
    }
    await op.commit();
  }
}

/** Counts every key of `kv` (optionally under `prefix`). */
export async function countKeys(kv: Deno.Kv, prefix: Deno.KvKey = []): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}
