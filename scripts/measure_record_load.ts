/**
 * A cold record load, old against new, in one run (issue #22): `deno run -A --unstable-kv
 * scripts/measure_record_load.ts <kv file of a bench:big build> <members.json> <old checkout>`.
 * Works on a copy of the KV (under /dev/shm unless BENCH_BIG_SCRATCH says otherwise). The old load
 * is `readRecordBase` imported from the old checkout (e.g. `git worktree add /tmp/old main`); the
 * new one is this tree's, from its snapshot plus the days written since. Rounds alternate old and
 * new over the same members, so a busy machine weighs on both alike; figures are medians.
 */

import { manualClock } from "../lib/foundation/clock.ts";
import { formatDay } from "../lib/foundation/dates.ts";
import { readRecordBase } from "../lib/record/member_records.ts";
import { saveEntry } from "../lib/record/store.ts";

type Load = (kv: Deno.Kv, memberId: string) => Promise<unknown>;

const [kvFile, membersFile, oldTree] = Deno.args;
if (!oldTree) {
  throw new Error("usage: measure_record_load.ts <kv.sqlite3> <members.json> <old tree>");
}
const oldLoad: Load =
  (await import(`${new URL(`file://${oldTree}/`)}lib/record/member_records.ts`)).readRecordBase;
const scratch = Deno.env.get("BENCH_BIG_SCRATCH") ?? "/dev/shm";
const copy = `${scratch}/measure_record_load_${Deno.pid}.sqlite3`;
await Deno.copyFile(kvFile, copy);
const kv = await Deno.openKv(copy);
const members: { memberId: string; threeYears: boolean }[] =
  JSON.parse(await Deno.readTextFile(membersFile)).members;
const ids = members.filter((m) => m.threeYears).slice(0, 100).map((m) => m.memberId);

/** Milliseconds of each load of `ids` with `load`, in order. */
async function timeLoads(load: Load): Promise<number[]> {
  const out: number[] = [];
  for (const id of ids) {
    const t = performance.now();
    await load(kv, id);
    out.push(performance.now() - t);
  }
  return out;
}

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length * 0.9)];
const fmt = (xs: number[]) => `median ${median(xs).toFixed(1)} ms, p90 ${p90(xs).toFixed(1)} ms`;

try {
  await timeLoads(oldLoad); // warm-up: JIT and SQLite's page cache for both
  const first = await timeLoads(readRecordBase); // no snapshot yet: every entry, then stored
  const clock = manualClock(Date.now());
  for (const id of ids) {
    // one saved day since the snapshot, as after a member's save
    const date = formatDay(Math.floor(Date.now() / 86_400_000) - 1);
    await saveEntry({ ctx: { kv, clock }, memberId: id, date, values: {}, note: "measured" });
  }
  const [olds, news] = [[] as number[], [] as number[]];
  for (let round = 0; round < 3; round++) {
    olds.push(...await timeLoads(oldLoad));
    news.push(...await timeLoads(readRecordBase));
  }
  console.log(`${ids.length} three-year members of ${kvFile}, three alternating rounds`);
  console.log(`old load (every entry):              ${fmt(olds)}`);
  console.log(`first new load (every entry, stored): ${fmt(first)}`);
  console.log(`new load (snapshot + 1 changed day):  ${fmt(news)}`);
  console.log(`ratio new / old (medians): ${(median(news) / median(olds)).toFixed(2)}`);
} finally {
  kv.close();
  await Deno.remove(copy);
}
