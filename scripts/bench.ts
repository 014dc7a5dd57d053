/**
 * `deno task bench`: starts the service and a bare `Deno.serve` ceiling in the same run, loads both
 * on loopback with wrk, and prints requests/s, p50 and p99 per scenario as a ratio to the ceiling.
 * The rate limiter runs on every request; quotas are multiplied so it counts but never rejects.
 *
 * Options (environment): BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 32),
 * BENCH_PORT (default 18001; the bare ceiling listens on the next port).
 * Needs `wrk` (Debian: `apt-get install wrk`). Not part of CI: timings on a shared 2-core machine
 * belong in a closing note, not in an assertion.
 */

import { TEST_COLUMNS } from "../tests/http/_members.ts";
import { benchCoach } from "./bench_coach.ts";

const DURATION = Number(Deno.env.get("BENCH_DURATION") ?? 10);
const CONNECTIONS = Number(Deno.env.get("BENCH_CONNECTIONS") ?? 32);
const SERVICE_PORT = Number(Deno.env.get("BENCH_PORT") ?? 18001);
const BARE_PORT = SERVICE_PORT + 1;
const ROOT = new URL("../", import.meta.url);

interface Scenario {
  name: string;
  path: string;
  body: unknown;
  headers?: Record<string, string>;
}

/** Extra scenarios other modules add (e.g. authenticated calls) are listed here. */
export const SCENARIOS: Scenario[] = [
  {
    name: "sandbox tools/call get_streak",
    path: "/api/sandbox",
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_streak", arguments: { metric: "meditation_min" } },
    },
  },
  {
    name: "sandbox tools/call get_correlation",
    path: "/api/sandbox",
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_correlation", arguments: { metric_a: "sleep_hours", metric_b: "mood" } },
    },
  },
  {
    name: "sandbox tools/list",
    path: "/api/sandbox",
    body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
  },
];

interface Result {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

function parseMs(text: string): number {
  const m = /([\d.]+)(us|ms|s)/.exec(text);
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
}

async function runWrk(url: string, scenario: Scenario): Promise<Result> {
  const lua = await Deno.makeTempFile({ suffix: ".lua" });
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...scenario.headers,
  };
  await Deno.writeTextFile(
    lua,
    [
      `wrk.method = "POST"`,
      `wrk.body = ${JSON.stringify(JSON.stringify(scenario.body))}`,
      ...Object.entries(headers).map(([k, v]) =>
        `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`
      ),
    ].join("\n"),
  );
  const out = await new Deno.Command("wrk", {
    args: ["-t1", `-c${CONNECTIONS}`, `-d${DURATION}s`, "--latency", "-s", lua, url],
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(lua);
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) throw new Error(`wrk failed: ${new TextDecoder().decode(out.stderr)}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
  const p50 = parseMs(/\s50%\s+(\S+)/.exec(text)?.[1] ?? "");
  const p99 = parseMs(/\s99%\s+(\S+)/.exec(text)?.[1] ?? "");
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  return { rps, p50, p99, non2xx };
}

async function postJson(
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

/**
 * Registers a member through Route A, gives them a year of daily data through /api/proxy
 * (`importRecord`) and mints a read token: the authenticated scenario's subject.
 */
export async function seedMember(url: string): Promise<{ sessionToken: string; token: string }> {
  const reg = await postJson(`${url}/api/auth`, {
    action: "register",
    username: "bench",
    password: "bench passphrase",
  });
  const session = reg.sessionToken as string;
  // Two of the test suite's columns: a daily goal with skips, and a scale.
  const wanted = ["meditation_min", "mood"];
  for (const column of TEST_COLUMNS.filter((c) => wanted.includes(c.key))) {
    await postJson(`${url}/api/proxy`, { action: "createColumn", ...column }, session);
  }
  const lines = ["date,meditation_min,mood"];
  const today = Date.now();
  for (let i = 365; i >= 1; i--) {
    const date = new Date(today - i * 86_400_000).toISOString().slice(0, 10);
    lines.push(`${date},${i % 11 === 0 ? "skip" : (i * 7) % 25},${1 + (i % 5)}`);
  }
  await postJson(`${url}/api/proxy`, { action: "importRecord", csv: lines.join("\n") }, session);
  const created = await postJson(`${url}/api/tokens`, {
    action: "create",
    name: "bench",
    scopes: ["read"],
  }, session);
  return { sessionToken: session, token: created.token as string };
}

/** Revokes a token while 16 clients loop calls with it; every call started after is refused. */
async function revocationUnderLoad(url: string, session: string): Promise<string> {
  const created = await postJson(`${url}/api/tokens`, {
    action: "create",
    name: "revoke-me",
    scopes: ["read"],
  }, session);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_streak", arguments: { metric: "meditation_min" } },
  });
  let revokedAt = Infinity;
  let okAfter = 0, refusedAfter = 0, okBefore = 0;
  let stop = false;
  const client = async () => {
    while (!stop) {
      const started = performance.now();
      const res = await fetch(`${url}/api/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${created.token}` },
        body,
      });
      await res.body?.cancel();
      if (started > revokedAt) res.status === 401 ? refusedAfter++ : okAfter++;
      else if (res.status === 200) okBefore++;
    }
  };
  const clients = Array.from({ length: 16 }, client);
  await new Promise((r) => setTimeout(r, 500));
  await postJson(`${url}/api/tokens`, { action: "revoke", id: created.id }, session);
  revokedAt = performance.now();
  await new Promise((r) => setTimeout(r, 300));
  stop = true;
  await Promise.all(clients);
  return `revocation under load: ${okBefore} calls served before revoke; after it ${refusedAfter} refused (401), ${okAfter} served${
    okAfter === 0 ? " ✓" : " ✗"
  }`;
}

async function waitFor(url: string, init?: RequestInit): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(url, init);
      await res.body?.cancel();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not start`);
}

/** Starts the service on a fresh KV file; `prepare` may seed it before load. */
export async function startService(extraEnv: Record<string, string> = {}) {
  const dir = await Deno.makeTempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "main.ts"],
    cwd: ROOT,
    env: {
      PORT: String(SERVICE_PORT),
      KV_PATH: `${dir}/kv.sqlite3`,
      RATE_LIMIT_MULTIPLIER: "100000",
      ...extraEnv,
    },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${SERVICE_PORT}`;
  await waitFor(`${url}/api/proxy`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"action":"healthCheck"}',
  });
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

if (import.meta.main) {
  try {
    await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" }).output();
  } catch {
    console.error("wrk is not installed: apt-get install wrk");
    Deno.exit(1);
  }
  const bare = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/bench_bare.ts"],
    cwd: ROOT,
    env: { PORT: String(BARE_PORT) },
    stdout: "null",
  }).spawn();
  const bareUrl = `http://127.0.0.1:${BARE_PORT}`;
  await waitFor(bareUrl);
  const service = await startService();
  try {
    const member = await seedMember(service.url);
    SCENARIOS.push({
      name: "member tools/call get_streak (token lookup + mcp limit, 1 year)",
      path: "/api/mcp",
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_streak", arguments: { metric: "meditation_min" } },
      },
      headers: { Authorization: `Bearer ${member.token}` },
    });
    // Warm both (JIT, caches) before measuring.
    for (const s of SCENARIOS) await runWrk(service.url + s.path, { ...s });
    const ceiling = await runWrk(bareUrl, SCENARIOS[0]);
    console.log(
      `\nwrk -t1 -c${CONNECTIONS} -d${DURATION}s on loopback, ${new Date().toISOString()}\n`,
    );
    console.log("| scenario | req/s | ratio to ceiling | p50 ms | p99 ms | non-2xx |");
    console.log("|---|---|---|---|---|---|");
    console.log(
      `| ceiling: bare Deno.serve, fixed JSON | ${ceiling.rps.toFixed(0)} | 1.00 | ${
        ceiling.p50.toFixed(2)
      } | ${ceiling.p99.toFixed(2)} | ${ceiling.non2xx} |`,
    );
    for (const s of SCENARIOS) {
      const r = await runWrk(service.url + s.path, s);
      console.log(
        `| ${s.name} | ${r.rps.toFixed(0)} | ${(r.rps / ceiling.rps).toFixed(2)} | ${
          r.p50.toFixed(2)
        } | ${r.p99.toFixed(2)} | ${r.non2xx} |`,
      );
    }
    console.log(`\n${await revocationUnderLoad(service.url, member.sessionToken)}`);
    for (const line of await benchCoach()) console.log(line);
  } finally {
    await service.stop();
    bare.kill("SIGTERM");
    await bare.status;
  }
}
