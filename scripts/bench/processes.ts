/**
 * Service processes for the scale sections of `deno task bench`: one or several `deno run main.ts`
 * processes on one KV file (each on its own port), or `deno serve --parallel`. BENCH_ROOT points
 * at another checkout to measure it with the same harness (the "before" figures of issue #13).
 */

export const ROOT = new URL(Deno.env.get("BENCH_ROOT") ?? "../../", import.meta.url);
/** First port of the scale sections; clear of the single-process section's 18001/18002. */
export const SCALE_PORT = Number(Deno.env.get("BENCH_SCALE_PORT") ?? 18100);

/** One running service process. */
export interface ServiceProcess {
  url: string;
  pid: number;
}

/** Several processes sharing one KV file, stopped together. */
export interface ServiceGroup {
  processes: ServiceProcess[];
  kvPath: string;
  stop(): Promise<void>;
}

/** Whether the service at `url` answers its health check at all (started, not necessarily ok). */
export async function answers(url: string): Promise<{ ok: boolean } | null> {
  try {
    const res = await fetch(`${url}/api/proxy`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"action":"healthCheck"}',
    });
    await res.body?.cancel();
    return { ok: res.ok };
  } catch {
    return null;
  }
}

export async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await answers(url)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not start`);
}

/** Options of `startGroup`. */
export interface GroupOptions {
  count: number;
  env?: Record<string, string>;
  /** `deno serve --parallel` (one port, `count` workers via DENO_JOBS) instead of `deno run`s. */
  parallel?: boolean;
  /** Reuse this KV file (the caller owns it) instead of a fresh one. */
  kvPath?: string;
}

/** Starts `count` processes on one fresh KV file, ports SCALE_PORT, SCALE_PORT + 1, … */
export async function startGroup(options: GroupOptions): Promise<ServiceGroup> {
  const dir = await Deno.makeTempDir();
  const kvPath = options.kvPath ?? `${dir}/kv.sqlite3`;
  const children: Deno.ChildProcess[] = [];
  const processes: ServiceProcess[] = [];
  const runs = options.parallel ? 1 : options.count;
  for (let i = 0; i < runs; i++) {
    const port = SCALE_PORT + i;
    const args = options.parallel
      ? ["serve", "-A", "--unstable-kv", "--parallel", "--port", String(port), "main.ts"]
      : ["run", "-A", "--unstable-kv", "main.ts"];
    const child = new Deno.Command(Deno.execPath(), {
      args,
      cwd: ROOT,
      env: {
        PORT: String(port),
        KV_PATH: kvPath,
        RATE_LIMIT_MULTIPLIER: "100000",
        DENO_JOBS: String(options.count),
        ...options.env,
      },
      stdout: "null",
      stderr: "inherit",
    }).spawn();
    children.push(child);
    processes.push({ url: `http://127.0.0.1:${port}`, pid: child.pid });
    // One at a time: the first creates the KV schema, the others open it.
    await waitFor(processes[i].url);
  }
  return {
    processes,
    kvPath,
    async stop() {
      for (const child of children) child.kill("SIGTERM");
      for (const child of children) await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Resident set size of a process in MB (Linux /proc). */
export async function rssMb(pid: number, field = "VmRSS"): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** POSTs JSON and returns the parsed body; throws on a non-2xx answer. */
export async function postJson(
  url: string,
  body: unknown,
  bearer?: string,
): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${url} ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Registers a member with one integer column; returns their session token. */
export async function registerWriter(url: string, username: string): Promise<string> {
  const reg = await postJson(`${url}/api/auth`, {
    action: "register",
    username,
    password: "bench passphrase",
  });
  const session = reg.sessionToken as string;
  await postJson(`${url}/api/proxy`, {
    action: "createColumn",
    key: "steps",
    label: "Steps",
    type: "integer",
  }, session);
  return session;
}
