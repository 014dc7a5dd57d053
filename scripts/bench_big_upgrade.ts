/**
 * The first visit after an upgrade, measured apart from the steady state (issue #22). A real
 * instance's members have a record snapshot (lib/record/record_snapshot.ts) once they have been
 * seen after the release that added it; a build made before it has none, so a load over it would
 * measure every active member's first visit (each reads every entry and writes the snapshot on the
 * request path), not the instance as it runs.
 *
 * - `upgradedOnce` writes every member's snapshot on the cached build through the project's own
 *   pass (lib/operations/record_snapshots.ts, which `admin restore` runs), on a copy that then
 *   replaces the build's file, and stamps `upgraded.json` beside it: once per snapshot format.
 * - `firstLoadCost` measures, on the copy a run uses, what that first visit costs: a sample of
 *   members has its snapshot deleted (as before the upgrade) and is loaded, then loaded again
 *   with the snapshot just written. Both are printed, so neither cost is hidden.
 */

import { keys } from "../lib/foundation/kv_keys.ts";
import { readRecordBase } from "../lib/record/member_records.ts";
import { MAX_PARTS, SNAPSHOT_FORMAT } from "../lib/record/record_snapshot.ts";
import { writeRecordSnapshots } from "../lib/operations/record_snapshots.ts";
import { countRoundTrips } from "../tests/_kv_round_trips.ts";
import type { BigInstance, BigMember } from "./bench_big_build.ts";

/** What `upgraded.json` records of the pass. */
export interface UpgradeStamp {
  snapshotFormat: number;
  members: number;
  seconds: number;
  at: string;
}

/** Writes every member's snapshot on `kvPath`, as `admin restore` does; progress on stderr. */
export async function snapshotEveryone(kvPath: string): Promise<void> {
  const kv = await Deno.openKv(kvPath);
  try {
    await writeRecordSnapshots(kv, ({ members }) => {
      if (members % 1_000 === 0) console.error(`  upgraded ${members} members`);
    });
  } finally {
    kv.close();
  }
}

/**
 * Waits until SQLite has folded the WAL into the closed file (Deno's `close()` does so as the last
 * connection closes), so the renamed file alone holds every snapshot written.
 */
async function walFolded(kvPath: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (!(await Deno.stat(`${kvPath}-wal`).then(() => true, () => false))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${kvPath}-wal is still there: the upgrade pass's KV did not close`);
}

/**
 * The build's file with every member's snapshot written (once per snapshot format; stamped in
 * `upgraded.json`). Written on a copy renamed over the file, so a run copying the build meanwhile
 * copies either file whole.
 */
export async function upgradedOnce(big: BigInstance): Promise<UpgradeStamp> {
  const dir = big.kvPath.slice(0, big.kvPath.lastIndexOf("/"));
  const stampPath = `${dir}/upgraded.json`;
  const held = await Deno.readTextFile(stampPath).then(JSON.parse, () => null) as
    | UpgradeStamp
    | null;
  if (held?.snapshotFormat === SNAPSHOT_FORMAT) return held;
  console.error(`upgrading ${big.members.length} members (every record snapshot written, once)`);
  const started = performance.now();
  const scratch = `${dir}/kv.upgrading.sqlite3`;
  await Deno.copyFile(big.kvPath, scratch);
  await snapshotEveryone(scratch);
  await walFolded(scratch);
  await Deno.rename(scratch, big.kvPath);
  const stamp: UpgradeStamp = {
    snapshotFormat: SNAPSHOT_FORMAT,
    members: big.members.length,
    seconds: (performance.now() - started) / 1000,
    at: new Date().toISOString(),
  };
  await Deno.writeTextFile(stampPath, JSON.stringify(stamp));
  return stamp;
}

/** One load's time and keys read. */
interface LoadCost {
  ms: number;
  keys: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Loads `memberId` through a counting KV: its time and keys read. */
async function timedLoad(kv: Deno.Kv, memberId: string): Promise<LoadCost> {
  const counting = countRoundTrips(kv);
  const started = performance.now();
  await readRecordBase(counting.kv, memberId);
  return { ms: performance.now() - started, keys: counting.counts().keysRead };
}

/** Medians of a sample's loads. */
export interface FirstLoadCost {
  sample: number;
  first: LoadCost;
  steady: LoadCost;
}

/**
 * On `kvPath` (a run's copy): the median first load after an upgrade of `sample` (their snapshots
 * deleted first, as a build before snapshots has none), and the median load of the same members
 * with the snapshot that first load wrote.
 */
export async function firstLoadCost(kvPath: string, sample: BigMember[]): Promise<FirstLoadCost> {
  const kv = await Deno.openKv(kvPath);
  try {
    const op = kv.atomic();
    for (const m of sample) {
      for (let i = 0; i < MAX_PARTS; i++) op.delete(keys.recordSnapshot(m.memberId, i));
    }
    await op.commit();
    const [first, steady]: LoadCost[][] = [[], []];
    for (const m of sample) first.push(await timedLoad(kv, m.memberId));
    for (const m of sample) steady.push(await timedLoad(kv, m.memberId));
    const of = (xs: LoadCost[]) => ({
      ms: median(xs.map((x) => x.ms)),
      keys: median(xs.map((x) => x.keys)),
    });
    return { sample: sample.length, first: of(first), steady: of(steady) };
  } finally {
    kv.close();
  }
}

/**
 * `--cold`: every member of `members` without a snapshot on `kvPath` (a run's copy), as on the
 * first day after the upgrade that added them: the load then measures first visits, each reading
 * every entry and writing the snapshot on the request path.
 */
export async function dropSnapshots(kvPath: string, members: BigMember[]): Promise<void> {
  const kv = await Deno.openKv(kvPath);
  try {
    const perCommit = Math.floor(1_000 / MAX_PARTS);
    for (let i = 0; i < members.length; i += perCommit) {
      const op = kv.atomic();
      for (const m of members.slice(i, i + perCommit)) {
        for (let part = 0; part < MAX_PARTS; part++) {
          op.delete(keys.recordSnapshot(m.memberId, part));
        }
      }
      await op.commit();
    }
  } finally {
    kv.close();
  }
}
