/**
 * The measured steps of `deno task bench:big` (issue #22) other than the load: service start-up,
 * `deno task admin` runs with their peak memory, and in-process passes on a KV file (a member's
 * deletion, a coach pass) with the keys they read counted (tests/_kv_round_trips.ts).
 */

import { keys } from "../lib/foundation/kv_keys.ts";
import { formatDay } from "../lib/foundation/dates.ts";
import { coachPoll } from "../lib/coach/worker.ts";
import { deleteMember } from "../lib/operations/members.ts";
import { saveEntry } from "../lib/record/store.ts";
import { countRoundTrips } from "../tests/_kv_round_trips.ts";
import { FIXTURE_BASE_URL, FIXTURE_NOW, FIXTURE_TODAY } from "../tests/_big_instance.ts";
import { ADMIN_ARGS } from "../tests/process/_admin.ts";
import type { BigMember } from "./bench_big_build.ts";
import { answers } from "./bench/processes.ts";

export const ROOT = new URL("../", import.meta.url).pathname;

/**
 * The flags `deno task start` gives `deno run` (deno.json), V8's heap cap among them: the bench
 * measures the service as it is shipped.
 */
export const START_FLAGS: string[] = startFlags(
  JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).tasks.start,
);

/** `deno task build && deno run FLAGS main.ts` → FLAGS. */
export function startFlags(task: string): string[] {
  const run = task.split("&&").at(-1)!.trim().split(/\s+/);
  if (run[0] !== "deno" || run[1] !== "run" || run.at(-1) !== "main.ts") {
    throw new Error(`deno.json's start task is not "… && deno run FLAGS main.ts": ${task}`);
  }
  return run.slice(2, -1);
}

/**
 * Extra `deno run` flags for the measured service, from `BENCH_SERVICE_FLAGS` (space-separated),
 * to look inside the load: `--cpu-prof --cpu-prof-dir=/tmp/prof` (a CPU profile, written when the
 * service stops), or `--inspect=127.0.0.1:9229` (a heap snapshot taken over the DevTools
 * protocol). `BENCH_SERVICE_OUTPUT=inherit` shows the service's standard output. A profiler
 * changes what it measures: never in a reported run.
 */
function serviceFlags(): string[] {
  return (Deno.env.get("BENCH_SERVICE_FLAGS") ?? "").split(/\s+/).filter(Boolean);
}

/** Resident set size (or `VmHWM`, its peak) of a process in MB; NaN once it has exited. */
export async function rssMb(pid: number, field = "VmRSS"): Promise<number> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/** A process's resident memory split into anonymous (heaps, SQLite's cache) and file-backed MB. */
export async function rssSplit(pid: number): Promise<{ anon: number; file: number }> {
  return { anon: await rssMb(pid, "RssAnon"), file: await rssMb(pid, "RssFile") };
}

/** Samples a process's RSS every `ms` until stopped; keeps the peak and every sample. */
export function sampleRss(pid: number, ms = 250) {
  const samples: number[] = [];
  let peak = 0;
  let split = { anon: NaN, file: NaN };
  const timer = setInterval(async () => {
    const [rss, hwm] = [await rssMb(pid), await rssMb(pid, "VmHWM")];
    if (!Number.isNaN(rss) && !(rss <= Math.max(0, ...samples))) split = await rssSplit(pid);
    if (!Number.isNaN(rss)) samples.push(rss);
    if (!Number.isNaN(hwm)) peak = Math.max(peak, hwm);
  }, ms);
  return {
    samples,
    peak: () => peak,
    /** `RssAnon` and `RssFile` (MB) at the highest sample: the heaps, or mapped code and files. */
    peakSplit: () => split,
    stop: () => clearInterval(timer),
  };
}

/** A running service process. */
export interface Server extends AsyncDisposable {
  url: string;
  pid: number;
  /** Milliseconds from spawn to the first healthy answer. */
  startMs: number;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** The first healthy answer is what start-up is timed to. */
async function healthy(url: string): Promise<boolean> {
  return (await answers(url))?.ok === true;
}

/**
 * Starts `deno run START_FLAGS main.ts` (what `deno task start` runs after building the islands) on `kvPath`, and times it to the first healthy answer of `healthCheck`.
 */
export async function startServer(kvPath: string, env: Record<string, string> = {}) {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...START_FLAGS, ...serviceFlags(), "main.ts"],
    cwd: ROOT,
    env: {
      PORT: String(port),
      KV_PATH: kvPath,
      // the fixtures' OAuth grants are bound to this resource (tests/_big_instance.ts)
      BASE_URL: FIXTURE_BASE_URL,
      RATE_LIMIT_MULTIPLIER: "100000",
      LOG_FORMAT: Deno.env.get("LOG_FORMAT") ?? "off",
      DENO_NO_UPDATE_CHECK: "1",
      ...env,
    },
    stdin: "null",
    stdout: Deno.env.get("BENCH_SERVICE_OUTPUT") === "inherit" ? "inherit" : "null",
    stderr: "inherit",
  }).spawn();
  const deadline = started + 300_000;
  let exited = false;
  child.status.then(() => exited = true);
  while (!(await healthy(url))) {
    if (exited) {
      throw new Error(`the service on ${kvPath} exited at start-up (LOG_FORMAT=text shows why)`);
    }
    if (performance.now() > deadline) throw new Error(`${url} did not start`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const server: Server = {
    url,
    pid: child.pid,
    startMs: performance.now() - started,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
  return server;
}

/**
 * Start-up times on each of `paths`, started in turn `runs` times; the lowest of each (a shared
 * machine adds noise, never speed).
 */
export async function startupMs(paths: string[], runs = 3): Promise<number[]> {
  const best = paths.map(() => Infinity);
  for (let i = 0; i < runs; i++) {
    for (const [j, path] of paths.entries()) {
      await using server = await startServer(path);
      best[j] = Math.min(best[j], server.startMs);
    }
  }
  return best;
}

/** One `deno task admin …` run: its time, peak RSS, exit code and output. */
export async function timedAdmin(kvPath: string, ...args: string[]) {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [...ADMIN_ARGS, ...args],
    cwd: ROOT,
    env: { KV_PATH: kvPath, DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const rss = sampleRss(child.pid, 100);
  const out = await child.output();
  rss.stop();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  const result = {
    ms: performance.now() - started,
    peakMb: rss.peak(),
    code: out.code,
    stdout: text(out.stdout),
    stderr: text(out.stderr),
  };
  if (result.code !== 0) throw new Error(`admin ${args.join(" ")}: ${result.stderr}`);
  return result;
}

/** Bytes of a KV file and its WAL. */
export async function kvFileBytes(kvPath: string): Promise<number> {
  let total = 0;
  for (const f of [kvPath, `${kvPath}-wal`]) {
    total += await Deno.stat(f).then((s) => s.size, () => 0);
  }
  return total;
}

/** Whether `members` hold the same account, columns and entries in both KV files. */
export async function sameMembers(a: string, b: string, members: BigMember[]): Promise<boolean> {
  const [ka, kb] = [await Deno.openKv(a), await Deno.openKv(b)];
  try {
    for (const m of members) {
      for (const prefix of [keys.entriesOf(m.memberId), keys.columns(m.memberId)]) {
        const dump = async (kv: Deno.Kv) => {
          const out: unknown[] = [];
          for await (const e of kv.list({ prefix })) out.push([e.key, e.value]);
          out.push((await kv.get(prefix)).value);
          return Deno.inspect(out, { depth: 10, iterableLimit: Infinity, strAbbreviateSize: 1e9 });
        };
        if ((await dump(ka)) !== (await dump(kb))) return false;
      }
    }
    return true;
  } finally {
    ka.close();
    kb.close();
  }
}

/** Deletes `username` from the KV file as `admin delete-member` does: time and keys read. */
export async function deletionCost(kvPath: string, username: string) {
  const kv = await Deno.openKv(kvPath);
  try {
    const counting = countRoundTrips(kv);
    const started = performance.now();
    await deleteMember(counting.kv, username);
    return { ms: performance.now() - started, reads: counting.counts().keysRead };
  } finally {
    kv.close();
  }
}

/**
 * One coach pass with exactly `due.length` members due: each saves a day at an instant after the
 * fixture's (so their due keys come first in the index), then one poll runs at their due time.
 */
export async function coachPass(kvPath: string, due: BigMember[]) {
  const kv = await Deno.openKv(kvPath);
  try {
    const at = FIXTURE_NOW + 86_400_000;
    const ctx = { kv, clock: () => at, coachDebounceMs: 60_000 };
    for (const m of due) {
      const date = formatDay(FIXTURE_TODAY + 1);
      await saveEntry({ ctx, memberId: m.memberId, date, values: { mood: 3 }, note: null });
    }
    const counting = countRoundTrips(kv);
    const started = performance.now();
    const report = await coachPoll({ kv: counting.kv, clock: () => at + 61_000, owner: "bench" });
    return {
      ms: performance.now() - started,
      reads: counting.counts().keysRead,
      seen: report.seen,
    };
  } finally {
    kv.close();
  }
}
