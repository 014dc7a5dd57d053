/**
 * Starts N real service processes (`deno run -A --unstable-kv main.ts`) on one KV file in a temp
 * dir, each on its own free port, for tests of behaviour across instances (issue #9).
 *
 * With `kv: { latencyMs }` the processes run on a remote KV instead (issue #21): a KV Connect
 * server (tests/kv_connect/server.ts) started in this test process stores into that same file,
 * and every process reaches it through Deno's real remote client (`KV_URL=http://127.0.0.1:…`,
 * `DENO_KV_ACCESS_TOKEN`). The same test bodies then run on both. A test that inspects the KV
 * opens it with `openKv()`, as the processes see it: the server's store keeps KV Connect's packed
 * keys as one-part byte keys (tests/kv_connect/store.ts), so a scan of the file itself would find
 * no member id in any key and pass whatever the processes left. A test that runs `deno task admin`
 * gives it `kvEnv`.
 */
import {
  kvConnectEnv,
  type KvConnectServer,
  openKvConnect,
  startKvConnectServer,
} from "./kv_connect/server.ts";

/** Where the processes keep their data: one KV file, or a KV Connect server with this latency. */
export type KvMode = "file" | { latencyMs: number };

/**
 * The KV modes a multi-process test runs in: `defaults`, unless `TEST_KV` names one ("file" or
 * "remote:<latency ms>", e.g. `TEST_KV=remote:10 deno test -A tests/multiprocess/`).
 */
export function kvModes(defaults: KvMode[]): KvMode[] {
  const only = Deno.env.get("TEST_KV");
  if (!only) return defaults;
  const remote = /^remote:(\d+)$/.exec(only);
  if (only !== "file" && !remote) throw new Error(`TEST_KV: "file" or "remote:<ms>", not ${only}`);
  return [remote ? { latencyMs: Number(remote[1]) } : "file"];
}

/** A test name's suffix for `mode`: "one KV file" or "a remote KV (KV Connect, 10 ms)". */
export function kvModeName(mode: KvMode): string {
  return mode === "file" ? "one KV file" : `a remote KV (KV Connect, ${mode.latencyMs} ms)`;
}

/** The running processes; dispose (or `stop()`) to kill them and remove the temp dir. */
export interface Processes extends AsyncDisposable {
  /** Base URL of each process, e.g. `http://127.0.0.1:41234`. */
  urls: string[];
  pids: number[];
  /**
   * The KV file every process shares; on a remote KV, the KV Connect server's store (in its own
   * key layout: inspect the KV through `openKv()`).
   */
  kvPath: string;
  /** Opens the KV the processes use, as they see it (the file, or the server by Deno's client). */
  openKv(): Promise<Deno.Kv>;
  /** The environment that reaches the same KV (`KV_PATH`, or `KV_URL` and its token). */
  kvEnv: Record<string, string>;
  /** The KV Connect server when `kv` is remote (its outage switch, latency, counts). */
  server: KvConnectServer | null;
  /**
   * Kills every process; safe to call twice. On a KV file the temp dir goes too; a KV Connect
   * server stays up (so `openKv()` still reads what the processes left) until disposal.
   */
  stop(): Promise<void>;
  /** Everything process `i` wrote to stdout and stderr so far. */
  output(i: number): string;
  /** How process `i` exited (settles once it has; `stop()` makes it). */
  status(i: number): Promise<Deno.CommandStatus>;
}

/** Options of `startProcesses`. */
export interface StartProcessesOptions {
  /** How many processes; default 2. */
  count?: number;
  /** Extra environment for every process (e.g. `RATE_LIMIT_MULTIPLIER`). */
  env?: Record<string, string>;
  /** Use this KV file instead of a fresh one in a temp dir (the caller owns it). */
  kvPath?: string;
  /** `"file"` (default), or a remote KV through a KV Connect server with this latency. */
  kv?: KvMode;
  /**
   * `BASE_URL` of the processes: `"shared"` (default) gives every process the first one's URL, as
   * instances behind one load balancer have (an OAuth token's resource names it); `"own"` gives
   * each its own.
   */
  baseUrl?: "shared" | "own";
  /**
   * The `deno` arguments of each process, given its port; default `run -A --unstable-kv main.ts`.
   * (tests/process/serve_parallel_test.ts runs the README's `deno serve --parallel` command.)
   */
  args?: (port: number) => string[];
}

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const READY_TIMEOUT_MS = 60_000;

/** A port that was free a moment ago (the kernel picks it; a clash is retried by the caller). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

interface Child {
  process: Deno.ChildProcess;
  url: string;
  log: string[];
  done: Promise<Deno.CommandStatus>;
}

type ArgsOf = (port: number) => string[];
const DEFAULT_ARGS: ArgsOf = () => ["run", "-A", "--unstable-kv", MAIN];

function spawn(kvEnv: Record<string, string>, env: Record<string, string>, argsOf: ArgsOf): Child {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = new Deno.Command(Deno.execPath(), {
    args: argsOf(port),
    env: { BASE_URL: url, ...env, PORT: String(port), ...kvEnv },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const log: string[] = [];
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) log.push(decoder.decode(chunk, { stream: true }));
  };
  const drained = Promise.all([drain(process.stdout), drain(process.stderr)]);
  const done = process.status.then(async (s) => {
    await drained;
    return s;
  });
  return { process, url, log, done };
}

/** Polls the health check until the process answers 200, or fails if it exits first. */
async function waitHealthy(child: Child): Promise<boolean> {
  let exited = false;
  child.done.then(() => (exited = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!exited && Date.now() < deadline) {
    try {
      const res = await fetch(`${child.url}/api/proxy`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ action: "healthCheck" }),
      });
      await res.body?.cancel();
      // The port was free when chosen, but another test's process may have taken it since: only
      // a process that has itself announced listening on the port is the one answering.
      if (res.status === 200 && child.log.join("").includes(`:${new URL(child.url).port}`)) {
        return true;
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** SIGTERM (the service flushes and closes its KV), then SIGKILL if it lingers. */
async function kill(child: Child): Promise<void> {
  const signal = (s: Deno.Signal) => {
    try {
      child.process.kill(s);
    } catch {
      // Already gone.
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), 5_000);
  await child.done;
  clearTimeout(timer);
}

/** Starts one process, retrying on a fresh port if it could not bind (or start) the first time. */
async function startOne(
  kvEnv: Record<string, string>,
  env: Record<string, string>,
  argsOf: ArgsOf,
): Promise<Child> {
  let last: Child | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const child = spawn(kvEnv, env, argsOf);
    if (await waitHealthy(child)) return child;
    await kill(child);
    last = child;
  }
  throw new Error(`service process did not become healthy:\n${last?.log.join("")}`);
}

/** Starts `count` processes on one KV file and waits until each answers its health check. */
export async function startProcesses(options: StartProcessesOptions = {}): Promise<Processes> {
  const count = options.count ?? 2;
  const argsOf = options.args ?? DEFAULT_ARGS;
  const dir = options.kvPath ? null : await Deno.makeTempDir({ prefix: "rt-procs-" });
  const kvPath = options.kvPath ?? `${dir}/kv.sqlite3`;
  const env = { RATE_LIMIT_MULTIPLIER: "100", ...options.env };
  const mode = options.kv ?? "file";
  const server = mode === "file"
    ? null
    : await startKvConnectServer({ path: kvPath, latencyMs: mode.latencyMs });
  const kvEnv = server ? kvConnectEnv(server) : { KV_PATH: kvPath };
  const children: Child[] = [];
  let stopped = false;
  const removeDir = async () => {
    if (dir) await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(children.map(kill));
    if (!server) await removeDir();
  };
  const dispose = async () => {
    await stop();
    await server?.close();
    await removeDir();
  };
  try {
    // The first process alone creates the KV file and its schema; the rest start together.
    children.push(await startOne(kvEnv, env, argsOf));
    const restEnv = options.baseUrl === "own" ? env : { ...env, BASE_URL: children[0].url };
    const rest = await Promise.allSettled(
      Array.from({ length: count - 1 }, () => startOne(kvEnv, restEnv, argsOf)),
    );
    for (const r of rest) if (r.status === "fulfilled") children.push(r.value);
    const failed = rest.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  } catch (err) {
    await dispose();
    throw err;
  }
  return {
    urls: children.map((c) => c.url),
    pids: children.map((c) => c.process.pid),
    kvPath,
    kvEnv,
    server,
    openKv: () => server ? openKvConnect(server) : Deno.openKv(kvPath),
    stop,
    output: (i) => children[i].log.join(""),
    status: (i) => children[i].done,
    [Symbol.asyncDispose]: dispose,
  };
}
