/**
 * Measures the record cache (issue #22). Run with `--v8-flags=--expose-gc`:
 *
 *   deno run -A --unstable-kv --v8-flags=--expose-gc scripts/measure_record_cache.ts build DIR N
 *     writes N three-year members (tests/_record_fixtures.ts) and 40 one-year ones into DIR/kv
 *   ... calibrate DIR       heap and external growth of held records against `recordBytes`
 *   ... rss DIR MODULE N    RSS after loading N three-year members through MODULE's cache
 *                           (MODULE: the path of a member_records.ts, old or new)
 */

import { manualClock } from "../lib/foundation/clock.ts";
import { parseDay } from "../lib/foundation/dates.ts";
import { readRecordBase, recordBytes } from "../lib/record/member_records.ts";
import {
  buildMember,
  type HistoryShape,
  ONE_YEAR,
  THREE_YEARS,
} from "../tests/_record_fixtures.ts";
import { memoryAtRest } from "../tests/_memory_at_rest.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");
const LAST_DAY = parseDay("2026-11-22")!;
const [mode, dir, arg3, arg4] = Deno.args;
const mib = (n: number) => (n / 1024 / 1024).toFixed(1);

/** Member ids of the fixture, by shape. */
interface Ids {
  one: string[];
  three: string[];
}

async function build(count: number) {
  await Deno.mkdir(dir, { recursive: true });
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  const clock = manualClock();
  const ids: Ids = { one: [], three: [] };
  const add = async (list: string[], username: string, shape: HistoryShape, seed: number) =>
    list.push(
      (await buildMember(kv, clock, { username, shape, seed, lastDay: LAST_DAY })).memberId,
    );
  for (let i = 0; i < 40; i++) await add(ids.one, `one${i}`, ONE_YEAR, i);
  for (let i = 0; i < count; i++) {
    await add(ids.three, `three${i}`, THREE_YEARS, 1000 + i);
    if (i % 50 === 49) console.log(`${i + 1} three-year members`);
  }
  await Deno.writeTextFile(`${dir}/ids.json`, JSON.stringify(ids));
  kv.close();
}

/** Memory growth of holding `ids`' records, against the sum of their estimates. */
async function heapOf(kv: Deno.Kv, ids: string[]) {
  const held = [];
  const before = await memoryAtRest();
  let estimate = 0;
  for (const id of ids) {
    const base = await readRecordBase(kv, id);
    estimate += recordBytes(base);
    held.push(base);
  }
  const grown = await memoryAtRest() - before;
  return { grown, estimate, held: held.length };
}

async function calibrate(ids: Ids) {
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  for (
    const [name, list] of [["one year, 8 columns", ids.one], [
      "three years, 12 columns",
      ids.three.slice(0, 40),
    ]] as const
  ) {
    await heapOf(kv, list.slice(0, 2)); // warm up code and shared objects
    const r = await heapOf(kv, list);
    console.log(
      `${name}: ${r.held} records, memory grew ${mib(r.grown)} MiB, estimate ${
        mib(r.estimate)
      } MiB ` +
        `(estimate/measured ${(r.estimate / r.grown).toFixed(3)}), ${
          (r.grown / r.held / 1024).toFixed(0)
        } KiB each`,
    );
  }
  kv.close();
}

/** Anonymous and file-backed resident memory (Linux): a mapped KV file counts in RSS. */
async function rssParts(): Promise<string> {
  const status = await Deno.readTextFile("/proc/self/status").catch(() => "");
  return status.split("\n").filter((l) => /^Rss(Anon|File)/.test(l)).join(", ")
    .replace(/\s+/g, " ");
}

async function rss(ids: Ids, module: string, count: number) {
  const { MemberRecords } = await import(new URL(module, `file://${Deno.cwd()}/`).href);
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  // BOUND_MB (new cache only) overrides the default bound.
  const bound = Deno.env.get("BOUND_MB");
  const options = bound ? [{ maxBytes: Number(bound) * 1024 * 1024 }] : [];
  const records = new MemberRecords(kv, manualClock(), ...options);
  gc!();
  const start = Deno.memoryUsage();
  let peak = start.rss;
  for (const id of ids.three.slice(0, count)) {
    await records.load(id);
    peak = Math.max(peak, Deno.memoryUsage().rss);
  }
  gc!();
  const end = Deno.memoryUsage();
  // V8 gives freed pages back to the system lazily: measure again after ten idle seconds.
  await new Promise((r) => setTimeout(r, 10_000));
  gc!();
  const settled = Deno.memoryUsage();
  console.log(
    `${module}: ${count} three-year records loaded; RSS ${mib(start.rss)} -> ${mib(end.rss)} MiB ` +
      `after GC, ${mib(settled.rss)} after 10 s idle (peak ${mib(peak)}); heap used ` +
      `${mib(start.heapUsed)} -> ${mib(end.heapUsed)} MiB (heap total ${mib(settled.heapTotal)}, ` +
      `external ${mib(settled.external)}); ${await rssParts()}` +
      (records.held
        ? `; held ${records.held.records} records, ${mib(records.held.bytes)} MiB estimated`
        : ""),
  );
  kv.close();
}

if (mode === "build") await build(Number(arg3));
else {
  const ids: Ids = JSON.parse(await Deno.readTextFile(`${dir}/ids.json`));
  if (mode === "calibrate") await calibrate(ids);
  else await rss(ids, arg3, Number(arg4));
}
