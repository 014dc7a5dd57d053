/**
 * The instance `deno task bench:big` measures (issue #22), built once from a seed and kept under
 * `.cache/bench_big/` (gitignored): members with a year of 8 columns, every fifth of them with
 * three years of 12 columns instead, each with a session, an API token, an OAuth grant with its
 * refresh token and rate-limit counters, and coach findings for one member in twenty. Everything is
 * written through the project's own store, account and OAuth functions (tests/_big_instance.ts),
 * several members at once, each member's history in as few commits as the KV limits allow.
 *
 * Values and notes follow the seed; ids and secrets are minted by the real functions, so the
 * credentials are kept beside the KV file (`members.json`) for the load to use.
 */

import { manualClock } from "../lib/foundation/clock.ts";
import { keys } from "../lib/foundation/kv_keys.ts";
import { runCoach } from "../lib/coach/run.ts";
import { checkDataFormat, DATA_FORMAT_VERSION } from "../lib/operations/migrations.ts";
import { ColumnCreate, createColumn, type StoreContext } from "../lib/record/store.ts";
import type { DayValue } from "../lib/record/types.ts";
import { mulberry32 } from "../lib/sandbox/synthetic_member.ts";
import {
  FIXTURE_NOW,
  FIXTURE_TODAY,
  type FixtureMember,
  NOTES,
  registerFixtureMember,
  THREE_YEAR_COLUMNS,
  THREE_YEAR_DAYS,
  valueOf,
  writeCounters,
  writeHistory,
} from "../tests/_big_instance.ts";

/** What one build holds, as `members.json` keeps it. */
export interface BigInstance {
  seed: number;
  members: BigMember[];
  kvPath: string;
  /** Member-years of history written (the KV size is reported per member-year). */
  memberYears: number;
  buildSeconds: number;
}

/** A member of the instance: credentials, and whether they hold three years. */
export interface BigMember extends FixtureMember {
  threeYears: boolean;
}

/** Every fifth member holds three years of 12 columns; the others a year of 8. */
export const isThreeYear = (i: number) => i % 5 === 0;
/** The 8 columns of a one-year member. */
export const YEAR_COLUMNS = THREE_YEAR_COLUMNS.slice(0, 8);
/** Members built at once (registration hashes a password; the history commits wait on KV). */
const CONCURRENCY = 24;

/**
 * `days` days of `columns` ending `FIXTURE_TODAY`: a day in twenty missed, a value in ten
 * forgotten, short notes on a fifth of the days (tests/_big_instance.ts draws the values).
 */
function historyOf(seed: number, days: number, columns: readonly { key: string }[], now: number) {
  const next = mulberry32(seed);
  const out = [];
  for (let i = 0; i < days; i++) {
    const values: Record<string, DayValue> = {};
    for (const c of columns) {
      const value = valueOf(c.key, next, i);
      if (next() >= 0.1) values[c.key] = value;
    }
    const note = next() < 0.2 ? NOTES[i % NOTES.length] : null;
    if (next() < 0.05) continue;
    out.push({ day: FIXTURE_TODAY - days + 1 + i, entry: { values, note, updatedAt: now } });
  }
  return out;
}

async function buildMember(kv: Deno.Kv, seed: number, i: number): Promise<BigMember> {
  const clock = manualClock(FIXTURE_NOW);
  const accounts = { kv, clock, passwordIterations: 1_000 };
  const member = await registerFixtureMember(accounts, `big${String(i).padStart(5, "0")}`);
  const ctx: StoreContext = { kv, clock };
  const threeYears = isThreeYear(i);
  for (const input of threeYears ? THREE_YEAR_COLUMNS : YEAR_COLUMNS) {
    await createColumn(ctx, member.memberId, ColumnCreate.parse(input));
  }
  const entries = threeYears
    ? historyOf(seed + i, THREE_YEAR_DAYS, THREE_YEAR_COLUMNS, clock())
    : historyOf(seed + i, 365, YEAR_COLUMNS, clock());
  // a year of short days fits one commit (KV_LIMITS: 1,000 mutations, 800 KiB)
  await writeHistory(ctx, member.memberId, entries, 400);
  await writeCounters(kv, clock(), member.memberId, 1 + (i % 50));
  if (i % 20 === 1) await runCoach({ kv, clock, owner: "bench" }, member.memberId);
  return { ...member, threeYears };
}

/**
 * Empties the coach's due-time index: as if the coach had analysed every record it built and
 * nobody had written since (the fixture is dated days ago, so every key would be due at once and
 * the service's first poll would run 10,000 members in the middle of the load it measures).
 */
async function settleCoach(kv: Deno.Kv): Promise<void> {
  for (const prefix of [keys.coachDueAtAll(), ["coach_due_by_member"]]) {
    let op = kv.atomic();
    let n = 0;
    for await (const e of kv.list({ prefix }, { batchSize: 1_000 })) {
      op.delete(e.key);
      if (++n % 500 === 0) {
        await op.commit();
        op = kv.atomic();
      }
    }
    await op.commit();
  }
}

/** Builds `count` members into a fresh KV file at `kvPath`; reports progress on stderr. */
export async function buildBig(kvPath: string, seed: number, count: number): Promise<BigInstance> {
  const started = performance.now();
  const kv = await Deno.openKv(kvPath);
  // stamped as the service's start-up stamps a new KV: what follows is this version's format
  await checkDataFormat(kv);
  const members: BigMember[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      members[i] = await buildMember(kv, seed, i);
      if ((i + 1) % 500 === 0) {
        const s = ((performance.now() - started) / 1000).toFixed(0);
        console.error(`  built ${i + 1} of ${count} members (${s} s)`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
    await settleCoach(kv);
  } finally {
    kv.close();
  }
  const threeYear = members.filter((m) => m.threeYears).length;
  return {
    seed,
    members,
    kvPath,
    memberYears: (count - threeYear) + 3 * threeYear,
    buildSeconds: (performance.now() - started) / 1000,
  };
}

/**
 * Stamps the current data format on a build that has none (builds before the stamp was added
 * wrote this version's keys through this version's functions, so they hold its format).
 */
async function stampUnstamped(kvPath: string): Promise<void> {
  const kv = await Deno.openKv(kvPath);
  try {
    const entry = await kv.get<number>(keys.dataFormat());
    if (entry.value === null) await kv.set(keys.dataFormat(), DATA_FORMAT_VERSION);
  } finally {
    kv.close();
  }
}

/** The instance in `dir` (built there first unless a finished build is found). */
export async function cachedBig(dir: string, seed: number, count: number): Promise<BigInstance> {
  const meta = `${dir}/members.json`;
  try {
    const built: BigInstance = JSON.parse(await Deno.readTextFile(meta));
    await stampUnstamped(built.kvPath);
    return built;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(dir, { recursive: true });
  console.error(`building ${count} members into ${dir} (once; kept for later runs)`);
  const built = await buildBig(`${dir}/kv.sqlite3`, seed, count);
  // written last: a build interrupted halfway is rebuilt, not measured
  await Deno.writeTextFile(meta, JSON.stringify(built));
  return built;
}
