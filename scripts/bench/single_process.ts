/**
 * The single-process section of `deno task bench` (issue #13 item 6): one run loads, one after
 * the other with the same wrk settings and the same `tools/call get_streak` body,
 *   - the bare ceiling (`Deno.serve`, a fixed small JSON body: scripts/bench_bare.ts),
 *   - bare + the required work (parse, the same ~3 kB answer, the same headers: bare_work.ts),
 *   - the floor: the same with the answer computed once (bare_work.ts, PRECOMPUTED=1),
 *   - the service: sandbox get_streak (no credential, `sandbox` quota per client address) and
 *     authenticated get_streak on `/api/mcp` (token lookup, the member's `mcp` quota, a year of
 *     the member's own data),
 *   - the official MCP TypeScript SDK serving the same tool statelessly (sdk_server.ts),
 * and prints them side by side with the ratios. Only ratios within one run compare: the
 * load generator shares the machine's cores with the servers (reference/perf-anchors.md).
 *
 * Other helpers share the machine, so the load on it drifts during a run: every scenario is measured
 * in BENCH_ROUNDS rounds (default 3) interleaved with the others, and its median round is shown.
 *
 * Options (environment): BENCH_DURATION (s per round, default 5), BENCH_CONNECTIONS (default 32),
 * BENCH_PORT (default 18001; the bare servers and the SDK server listen on the next four ports).
 */

import { TEST_COLUMNS } from "../../tests/http/_members.ts";
import { postJson } from "./processes.ts";
import { parseWrkReport } from "./wrk_load.ts";

const DURATION = Number(Deno.env.get("BENCH_DURATION") ?? 5);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
const CONNECTIONS = Number(Deno.env.get("BENCH_CONNECTIONS") ?? 32);
const SERVICE_PORT = Number(Deno.env.get("BENCH_PORT") ?? 18001);
const ROOT = new URL("../../", import.meta.url);

interface Scenario {
  name: string;
  url: string;
  body: unknown;
  headers?: Record<string, string>;
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

const GET_STREAK = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "get_streak", arguments: { metric: "meditation_min" } },
};

async function runWrk(scenario: Scenario, seconds = DURATION): Promise<Result> {
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
    args: ["-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency", "-s", lua, scenario.url],
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(lua);
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) throw new Error(`wrk failed: ${new TextDecoder().decode(out.stderr)}`);
  return parseWrkReport(text);
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
  const body = JSON.stringify(GET_STREAK);
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

/** Waits until `url` answers the benchmark's call (any status). */
async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(GET_STREAK),
      });
      await res.body?.cancel();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not start`);
}

/** A helper server of the comparison (`scripts/…` relative to the repository), on `port`. */
async function startScript(script: string, port: number, env: Record<string, string> = {}) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", script],
    cwd: ROOT,
    env: { PORT: String(port), ...env },
    stdout: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url);
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** Starts the service on a fresh KV file (quotas multiplied: counted, never refused). */
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
  await waitFor(`${url}/api/sandbox`);
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The round with the median throughput (its latencies with it). */
function median(results: Result[]): Result {
  return [...results].sort((a, b) => a.rps - b.rps)[Math.floor(results.length / 2)];
}

const row = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
const ratio = (a: number, b: number) => (a / b).toFixed(2);

/** The table: every line's req/s and latency, and its ratio to the ceiling and to bare + work. */
function table(results: { name: string; r: Result }[], ceiling: Result, work: Result): string[] {
  return [
    `wrk -t1 -c${CONNECTIONS} -d${DURATION}s on loopback, median of ${ROUNDS} interleaved rounds, ${
      new Date().toISOString()
    }`,
    "",
    "| scenario | req/s | × ceiling | × bare+work | p50 ms | p99 ms | non-2xx |",
    "|---|---|---|---|---|---|---|",
    ...results.map(({ name, r }) =>
      row([
        name,
        r.rps.toFixed(0),
        ratio(r.rps, ceiling.rps),
        ratio(r.rps, work.rps),
        r.p50.toFixed(2),
        r.p99.toFixed(2),
        r.non2xx,
      ])
    ),
  ];
}

/** The targets, checked on this run's figures. */
function targets(
  { work, floor, sandbox, member, sdk }: Record<
    "work" | "floor" | "sandbox" | "member" | "sdk",
    Result
  >,
): string[] {
  const check = (ok: boolean) => (ok ? "✓" : "✗");
  const s = sandbox.rps / work.rps, m = member.rps / work.rps, k = sandbox.rps / sdk.rps;
  return [
    "",
    `sandbox / (bare + work) = ${s.toFixed(2)} (target ≥ 0.8) ${check(s >= 0.8)}`,
    `authenticated / (bare + work) = ${m.toFixed(2)} (target ≥ 0.6) ${check(m >= 0.6)}; ` +
    `authenticated / sandbox = ${(member.rps / sandbox.rps).toFixed(2)}`,
    `sandbox / SDK server = ${k.toFixed(2)} (target ≥ 5) ${check(k >= 5)}; authenticated / SDK = ${
      (member.rps / sdk.rps).toFixed(2)
    }`,
    // The floor does no per-request work but parsing and sending: no server with a credential
    // check, a quota and a log line can beat it, so it is the most the SDK ratio can reach.
    `floor / SDK server = ${(floor.rps / sdk.rps).toFixed(2)} (the bound on any server's ratio); ` +
    `sandbox / floor = ${(sandbox.rps / floor.rps).toFixed(2)}`,
  ];
}

/** Runs the single-process section; returns its printed lines. */
export async function singleProcessSection(): Promise<string[]> {
  const bare = await startScript("scripts/bench_bare.ts", SERVICE_PORT + 1);
  const work = await startScript("scripts/bench/bare_work.ts", SERVICE_PORT + 2);
  const sdk = await startScript("scripts/bench/sdk_server.ts", SERVICE_PORT + 3);
  const floor = await startScript("scripts/bench/bare_work.ts", SERVICE_PORT + 4, {
    PRECOMPUTED: "1",
  });
  const service = await startService();
  try {
    const member = await seedMember(service.url);
    const auth = { Authorization: `Bearer ${member.token}` };
    const scenarios: Scenario[] = [
      { name: "ceiling: bare Deno.serve, fixed JSON", url: bare.url, body: GET_STREAK },
      { name: "bare + work: parse, same answer, same headers", url: work.url, body: GET_STREAK },
      {
        name: "floor: bare, answer computed once, same headers",
        url: floor.url,
        body: GET_STREAK,
      },
      { name: "sandbox get_streak", url: `${service.url}/api/sandbox`, body: GET_STREAK },
      {
        name: "authenticated get_streak (token + member quota)",
        url: `${service.url}/api/mcp`,
        body: GET_STREAK,
        headers: auth,
      },
      { name: "official MCP SDK on Deno, stateless", url: sdk.url, body: GET_STREAK },
      {
        name: "sandbox get_correlation",
        url: `${service.url}/api/sandbox`,
        body: {
          ...GET_STREAK,
          params: {
            name: "get_correlation",
            arguments: { metric_a: "sleep_hours", metric_b: "mood" },
          },
        },
      },
      {
        name: "sandbox tools/list",
        url: `${service.url}/api/sandbox`,
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      },
    ];
    // Warm every server (JIT, caches) before measuring.
    for (const s of scenarios) await runWrk(s, 2);
    const rounds: Result[][] = scenarios.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, s] of scenarios.entries()) rounds[i].push(await runWrk(s));
    }
    const results = scenarios.map((s, i) => ({ name: s.name, r: median(rounds[i]) }));
    const [ceiling, bareWork, floorServer, sandbox, authenticated, sdkServer] = results.map((x) =>
      x.r
    );
    return [
      "",
      ...table(results, ceiling, bareWork),
      ...targets({
        work: bareWork,
        floor: floorServer,
        sandbox,
        member: authenticated,
        sdk: sdkServer,
      }),
      "",
      await revocationUnderLoad(service.url, member.sessionToken),
    ];
  } finally {
    await service.stop();
    for (const s of [bare, work, sdk, floor]) await s.stop();
  }
}

if (import.meta.main) console.log((await singleProcessSection()).join("\n"));
