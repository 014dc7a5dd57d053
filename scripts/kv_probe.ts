/**
 * `deno task kv:probe`: measures a remote Deno KV from where it runs (issue #21) — the round trip of
 * each call the service makes (p50 and p99 of `get`, a `getMany` of 10 keys, a `list` page of 100,
 * an atomic commit) and write throughput (commits per second from concurrent writers) — and prints
 * them with where it ran: the KV's host, the Deno version, the date and, on Deno Deploy, the region.
 *
 * Run it from where the service runs: on Deno Deploy's KV from outside, a strong read is one round
 * trip to the primary region (us-east4), about 7 ms in region and about 95 ms from Frankfurt; the
 * tests here inject latency into a KV Connect test server and cannot measure the real one.
 *
 *   KV_URL=https://api.deno.com/v2/databases/<id>/connect DENO_KV_ACCESS_TOKEN=… \
 *     deno task kv:probe [--samples 200] [--seconds 5] [--writers 8] [--json]
 *
 * It writes only its own keys (`kv_probe`, under a random run id) and deletes them at the end;
 * each expires within the hour if the probe is killed. Each call has a deadline (`KV_DEADLINE_MS`,
 * default 5 s), so an unreachable KV ends the probe with a message rather than a hang.
 */

import { keys } from "../lib/foundation/kv_keys.ts";
import { DEFAULT_KV_DEADLINE_MS, withKvDeadline } from "../lib/foundation/kv_deadline.ts";

/** One operation's round trips, in milliseconds. */
interface Timing {
  operation: string;
  n: number;
  p50: number;
  p99: number;
}

/** What one probe measured, and where. */
export interface ProbeReport {
  host: string;
  deno: string;
  date: string;
  region: string | null;
  timings: Timing[];
  throughput: { commitsPerSecond: number; writers: number; seconds: number };
}

interface ProbeOptions {
  samples: number;
  seconds: number;
  writers: number;
}

const EXPIRE_MS = 3_600_000;
const PAGE = 100;

/** The `q`-th quantile of `sorted` by nearest rank. */
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Times `samples` sequential calls of `call` (one warm-up call first). */
async function time(operation: string, samples: number, call: (i: number) => Promise<unknown>) {
  await call(-1);
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await call(i);
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { operation, n: samples, p50: quantile(ms, 0.5), p99: quantile(ms, 0.99) };
}

/** Writes the keys the reads read: one page of `PAGE`, in one commit. */
async function seed(kv: Deno.Kv, run: string): Promise<void> {
  const op = kv.atomic();
  for (let i = 0; i < PAGE; i++) {
    op.set(keys.kvProbe(run, "read", i), { i, pad: "x".repeat(64) }, { expireIn: EXPIRE_MS });
  }
  const res = await op.commit();
  if (!res.ok) throw new Error("the probe's seed commit failed");
}

async function roundTrips(kv: Deno.Kv, run: string, samples: number): Promise<Timing[]> {
  const readKey = (i: number) => keys.kvProbe(run, "read", ((i % PAGE) + PAGE) % PAGE);
  const ten = Array.from({ length: 10 }, (_, j) => readKey(j));
  return [
    await time("get", samples, (i) => kv.get(readKey(i))),
    await time("getMany (10 keys)", samples, () => kv.getMany(ten)),
    await time(`list page (${PAGE} keys)`, samples, async () => {
      const page = kv.list({ prefix: keys.kvProbeOf(run, "read") }, {
        limit: PAGE,
        batchSize: PAGE,
      });
      let n = 0;
      for await (const _ of page) n++;
      if (n !== PAGE) throw new Error(`the probe read ${n} of its ${PAGE} keys`);
    }),
    await time(
      "atomic commit",
      samples,
      (i) => kv.atomic().set(keys.kvProbe(run, "commit", i), i, { expireIn: EXPIRE_MS }).commit(),
    ),
  ];
}

/** Commits per second from `writers` concurrent writers, each committing one key after another. */
async function throughput(kv: Deno.Kv, run: string, options: ProbeOptions) {
  const until = performance.now() + options.seconds * 1000;
  let commits = 0;
  const writer = async (w: number) => {
    for (let i = 0; performance.now() < until; i++) {
      const key = keys.kvProbe(run, "write", w * 1_000_000 + i);
      const res = await kv.atomic().set(key, i, { expireIn: EXPIRE_MS }).commit();
      if (res.ok) commits++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w)));
  const seconds = (performance.now() - started) / 1000;
  return {
    commitsPerSecond: commits / seconds,
    writers: options.writers,
    seconds: options.seconds,
  };
}

/** Deletes every key of the run, 500 to a commit. */
async function cleanUp(kv: Deno.Kv, run: string): Promise<void> {
  for (const kind of ["read", "commit", "write"]) {
    let batch: Deno.KvKey[] = [];
    const drop = async () => {
      const op = kv.atomic();
      for (const key of batch) op.delete(key);
      await op.commit();
      batch = [];
    };
    for await (const e of kv.list({ prefix: keys.kvProbeOf(run, kind) }, { batchSize: 500 })) {
      batch.push(e.key);
      if (batch.length === 500) await drop();
    }
    if (batch.length > 0) await drop();
  }
}

/** Measures `kv` (reached at `url`). */
export async function probe(kv: Deno.Kv, url: string, options: ProbeOptions): Promise<ProbeReport> {
  const run = crypto.randomUUID();
  await seed(kv, run);
  try {
    const timings = await roundTrips(kv, run, options.samples);
    return {
      host: new URL(url).host,
      deno: `${Deno.version.deno} (${Deno.build.target})`,
      date: new Date().toISOString(),
      region: Deno.env.get("DENO_REGION") ?? null,
      timings,
      throughput: await throughput(kv, run, options),
    };
  } finally {
    await cleanUp(kv, run);
  }
}

/** The report as text: where it ran, then one line per operation. */
export function formatReport(r: ProbeReport): string {
  const ms = (n: number) => n.toFixed(1).padStart(8);
  const lines = [
    `KV probe of ${r.host}`,
    `  from: Deno ${r.deno}${r.region ? `, region ${r.region}` : ""}, ${r.date}`,
    "",
    `  ${"operation".padEnd(22)} ${"n".padStart(5)} ${"p50 ms".padStart(8)} ${
      "p99 ms".padStart(8)
    }`,
    ...r.timings.map((t) =>
      `  ${t.operation.padEnd(22)} ${String(t.n).padStart(5)} ${ms(t.p50)} ${ms(t.p99)}`
    ),
    "",
    `  write throughput: ${r.throughput.commitsPerSecond.toFixed(0)} commits/s ` +
    `(${r.throughput.writers} concurrent writers, ${r.throughput.seconds} s)`,
  ];
  return lines.join("\n");
}

/** `--name value` pairs and `--json`; anything else exits with a message naming it. */
function parseArgs(argv: string[]): { json: boolean; values: Record<string, string> } {
  const values: Record<string, string> = {};
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--json") json = true;
    else if (["--samples", "--seconds", "--writers"].includes(arg) && i + 1 < argv.length) {
      values[arg.slice(2)] = argv[++i];
    } else fail(`unknown argument "${arg}" (--samples N, --seconds N, --writers N, --json)`);
  }
  return { json, values };
}

/** A positive whole number option, or exit with a message naming it. */
function count(args: Record<string, string>, name: string, fallback: number, max: number): number {
  const raw = args[name] ?? String(fallback);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    fail(`--${name} must be a whole number from 1 to ${max}, got "${raw}"`);
  }
  return n;
}

function fail(message: string): never {
  console.error(`error: ${message}`);
  Deno.exit(2);
}

async function main(): Promise<void> {
  const args = parseArgs(Deno.args);
  const url = Deno.env.get("KV_URL") ?? "";
  if (!/^https?:\/\//.test(url)) {
    fail(
      "KV_URL must name a remote KV (KV Connect), e.g. https://api.deno.com/v2/databases/<id>/connect" +
        (url ? `; got "${url}"` : "; it is not set"),
    );
  }
  if (!Deno.env.get("DENO_KV_ACCESS_TOKEN")) {
    fail("DENO_KV_ACCESS_TOKEN is not set (the KV's access token)");
  }
  const options = {
    samples: count(args.values, "samples", 200, 100_000),
    seconds: count(args.values, "seconds", 5, 3_600),
    writers: count(args.values, "writers", 8, 256),
  };
  const deadline = Number(Deno.env.get("KV_DEADLINE_MS") || DEFAULT_KV_DEADLINE_MS);
  let kv: Deno.Kv | null = null;
  try {
    kv = withKvDeadline(await Deno.openKv(url), deadline);
    const report = await probe(kv, url, options);
    console.log(args.json ? JSON.stringify(report, null, 2) : formatReport(report));
  } catch (err) {
    fail(`the probe of ${new URL(url).host} stopped: ${(err as Error).message}`);
  } finally {
    kv?.close();
  }
}

if (import.meta.main) await main();
