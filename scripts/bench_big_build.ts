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
import type { Column, DayValue } from "../lib/record/types.ts";
import { mulberry32 } from "../lib/sandbox/synthetic_member.ts";
import {
  columnsOf,
  FIXTURE_NOW,
  FIXTURE_TODAY,
  type FixtureMember,
  NOTES,
  registerFixtureMember,
  THREE_YEAR_COLUMNS,
  THREE_YEAR_DAYS,
  valueOf,
  writeCountersOf,
  writeRecord,
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
export function historyOf(
  seed: number,
  days: number,
  columns: readonly { key: string }[],
  now: number,
) {
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

/** The columns of each kind of member, as `createColumn` makes them (made once a build). */
interface Templates {
  year: Column[];
  threeYears: Column[];
}

async function buildMember(kv: Deno.Kv, seed: number, i: number, templates: Templates) {
  const clock = manualClock(FIXTURE_NOW);
  const accounts = { kv, clock, passwordIterations: 1_000 };
  const member = await registerFixtureMember(accounts, `big${String(i).padStart(5, "0")}`);
  const threeYears = isThreeYear(i);
  const entries = threeYears
    ? historyOf(seed + i, THREE_YEAR_DAYS, THREE_YEAR_COLUMNS, clock())
    : historyOf(seed + i, 365, YEAR_COLUMNS, clock());
  // columns and a year of short days in one commit, three years in two (the KV limits)
  const columns = threeYears ? templates.threeYears : templates.year;
  await writeRecord({ kv, clock }, member.memberId, columns, entries);
  if (i % 20 === 1) await runCoach({ kv, clock, owner: "bench" }, member.memberId);
  const built: BigMember = { ...member, threeYears };
  return built;
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

/**
 * Where a build writes its KV file: a RAM-backed directory when the machine has one, else beside
 * `kvPath`. The build's time went to its commits waiting on the disk: 200 members took 37 ms
 * each on `/dev/shm` against 69–87 ms on the disk, in one run on this 2-core box. The finished
 * file is copied to `kvPath`; `BENCH_BIG_SCRATCH` names another directory (e.g. the cache's own,
 * to build on the disk where RAM is short: 10,000 members take ~1.7 GB).
 */
async function scratchDir(kvPath: string): Promise<string> {
  const wanted = Deno.env.get("BENCH_BIG_SCRATCH") ?? "/dev/shm";
  const usable = await Deno.stat(wanted).then((s) => s.isDirectory, () => false);
  const dir = usable ? wanted : kvPath.slice(0, kvPath.lastIndexOf("/")) || ".";
  return await Deno.makeTempDir({ dir, prefix: "bench_big-build-" });
}

/**
 * Copies a closed KV file to `to`. SQLite folds the WAL into the file and deletes it when the
 * last connection closes (Deno's `close()` does so before it returns, here); should a WAL still
 * be there after a while, it is copied with the file, which SQLite then reads as it would have.
 */
async function copyKv(from: string, to: string): Promise<void> {
  const walGone = () => Deno.stat(`${from}-wal`).then(() => false, () => true);
  for (let i = 0; i < 100 && !(await walGone()); i++) await new Promise((r) => setTimeout(r, 100));
  for (const suffix of ["", "-wal", "-shm"]) {
    await Deno.copyFile(`${from}${suffix}`, `${to}${suffix}`).catch((err) => {
      if (suffix === "" || !(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
}

/** Builds `count` members into a fresh KV file at `kvPath`; reports progress on stderr. */
export async function buildBig(kvPath: string, seed: number, count: number): Promise<BigInstance> {
  const started = performance.now();
  const scratch = await scratchDir(kvPath);
  try {
    const members = await buildFile(`${scratch}/kv.sqlite3`, seed, count, started);
    await copyKv(`${scratch}/kv.sqlite3`, kvPath);
    const threeYear = members.filter((m) => m.threeYears).length;
    return {
      seed,
      members,
      kvPath,
      memberYears: (count - threeYear) + 3 * threeYear,
      buildSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

async function buildFile(kvPath: string, seed: number, count: number, started: number) {
  const kv = await Deno.openKv(kvPath);
  try {
    // stamped as the service's start-up stamps a new KV: what follows is this version's format
    await checkDataFormat(kv);
    const progress = (n: number) => {
      if (n % 500 !== 0) return;
      const s = ((performance.now() - started) / 1000).toFixed(0);
      console.error(`  built ${n} of ${count} members (${s} s)`);
    };
    const members = await buildMembers(kv, seed, [...Array(count).keys()], { progress });
    await finishBuild(kv, members);
    return members;
  } finally {
    kv.close();
  }
}

/** Members built at once by `buildMembers`, and how it reports progress. */
export interface BuildOptions {
  concurrency?: number;
  /** Called after each member with how many are built. */
  progress?: (built: number) => void;
}

/**
 * Builds the members numbered `indices` into `kv`, `concurrency` at once: each member's
 * credentials and record (and coach findings for one in twenty). The KV must be stamped
 * (`checkDataFormat`) first; the counters and the coach's settling are `finishBuild`'s.
 */
export async function buildMembers(
  kv: Deno.Kv,
  seed: number,
  indices: number[],
  options: BuildOptions = {},
): Promise<BigMember[]> {
  const templates = {
    year: await columnsOf(YEAR_COLUMNS),
    threeYears: await columnsOf(THREE_YEAR_COLUMNS),
  };
  const members: BigMember[] = new Array(indices.length);
  let [next, built] = [0, 0];
  const worker = async () => {
    while (next < indices.length) {
      const j = next++;
      members[j] = await buildMember(kv, seed, indices[j], templates);
      options.progress?.(++built);
    }
  };
  const concurrency = Math.min(options.concurrency ?? CONCURRENCY, indices.length);
  await Promise.all(Array.from({ length: concurrency }, worker));
  return members;
}

/** After every member is built: their rate-limit counters (many to a commit), the coach settled. */
export async function finishBuild(kv: Deno.Kv, members: BigMember[]): Promise<void> {
  const counts = members.map((m, i): [string, number] => [m.memberId, 1 + (i % 50)]);
  await writeCountersOf(kv, FIXTURE_NOW, counts);
  await settleCoach(kv);
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
    // The file beside members.json, wherever this checkout is: the cache outlives worktrees,
    // and the path written at build time may name one that is gone.
    built.kvPath = `${dir}/kv.sqlite3`;
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
