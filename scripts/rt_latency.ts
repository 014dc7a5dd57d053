/**
 * Per-request server time on a remote KV with injected latency (issue #21, item 5: "the per-request
 * server time measured with 10 ms injected latency"). The app runs in this process on Deno's real
 * KV Connect client (`Deno.openKv(url)`, wrapped with the deadline as main.ts wraps it), in front
 * of the KV Connect test server (tests/kv_connect/server.ts) that adds `--latency-ms` to every
 * answer. The three-year member of tests/_big_instance.ts is written through the server (at no
 * latency) by a second client, which also makes the writes of "another instance"; then each kind of request is timed from `app.request` to the last byte of its body:
 *
 * - cached tools/call: `get_data_coverage` with an OAuth access token, record cached;
 * - cold record: the same call, first after a write (the record is re-read);
 * - saveEntry: `POST /api/proxy` with a session;
 * - page load: `GET /app` with the session cookie, after a save.
 *
 * What it cannot show: real network latency and its spread, a remote engine's own time.
 *
 *   deno task rt:latency [--latency-ms 10] [--runs 100]
 */

import { createApp } from "../main.ts";
import { testConfig } from "../lib/foundation/config.ts";
import { manualClock } from "../lib/foundation/clock.ts";
import { withKvDeadline } from "../lib/foundation/kv_deadline.ts";
import { saveEntry } from "../lib/record/store.ts";
import { buildThreeYearMember, FIXTURE_NOW } from "../tests/_big_instance.ts";
import { openKvConnect, TEST_TOKEN } from "../tests/kv_connect/server.ts";
import { countRoundTrips } from "../tests/_kv_round_trips.ts";
import { RateLimiter } from "../lib/policy/rate_limit.ts";

function flag(name: string, fallback: number): number {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
}

const LATENCY_MS = flag("latency-ms", 10);
const RUNS = flag("runs", 100);

/** The value at quantile `q` of sorted `xs` (nearest rank). */
function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

async function timed(send: () => Promise<Response>): Promise<number> {
  const began = performance.now();
  const res = await send();
  const body = await res.text();
  const ms = performance.now() - began;
  if (res.status !== 200) throw new Error(`status ${res.status}: ${body.slice(0, 300)}`);
  return ms;
}

/** The KV Connect test server as a child process; resolves once it listens. */
async function startServer(): Promise<{ url: string; token: string; stop: () => Promise<void> }> {
  const token = TEST_TOKEN;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--unstable-kv",
      new URL("../tests/kv_connect/server.ts", import.meta.url).pathname,
      "--latency-ms",
      String(LATENCY_MS),
      "--token",
      token,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/listening on (\S+)/.test(seen)) {
    const { value, done } = await lines.read();
    if (done) throw new Error("the KV Connect server stopped before listening");
    seen += value;
  }
  const url = seen.match(/listening on (\S+)/)![1];
  return {
    url,
    token,
    stop: async () => {
      child.kill("SIGTERM");
      await lines.cancel();
      await child.status;
    },
  };
}

const server = await startServer();
const config = testConfig({ kvDeadlineMs: 30_000 });
const shared = withKvDeadline(await openKvConnect(server), config.kvDeadlineMs);
const counting = countRoundTrips(shared);
/** Another instance's client: its writes are ones this app does not see coming. */
const elsewhere = await openKvConnect(server);
const clock = manualClock(FIXTURE_NOW);
const member = await buildThreeYearMember(elsewhere, { clock });
const app = createApp({
  kv: counting.kv,
  clock,
  config,
  rateLimiter: new RateLimiter(shared, clock, { multiplier: config.rateLimitMultiplier }),
});
const request = (path: string, init?: RequestInit) => Promise.resolve(app.request(path, init));

const mcp = () =>
  request("/api/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${member.accessToken}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_data_coverage", arguments: {} },
    }),
  });
let steps = 1000;
const save = () =>
  request("/api/proxy", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${member.sessionToken}` },
    body: JSON.stringify({ action: "saveEntry", date: member.lastDay, values: { steps: steps++ } }),
  });
const page = () => request("/app", { headers: { cookie: `rt_session=${member.sessionToken}` } });
/** A write by another instance: it bumps the record version, so the app re-reads the record. */
const writeElsewhere = () =>
  saveEntry({
    ctx: { kv: elsewhere, clock },
    memberId: member.memberId,
    date: member.lastDay,
    values: { steps: steps++ },
  });

/** A new second before each call: the MCP result cache (per second) never answers. */
const tick = () => clock.advance(1000);

/** A kind of request: what is done first (not timed), then the request timed. */
interface Kind {
  name: string;
  prepare: () => Promise<unknown> | void;
  send: () => Promise<Response>;
}

const kinds: Kind[] = [
  { name: "cached tools/call", prepare: tick, send: mcp },
  {
    name: "cold record (tools/call after a write)",
    prepare: () => (tick(), writeElsewhere()),
    send: mcp,
  },
  { name: "saveEntry (POST /api/proxy)", prepare: () => {}, send: save },
  { name: "page load after a save (GET /app)", prepare: save, send: page },
];

/** What one kind of request cost: its times, and its KV requests and their depth per run. */
interface Measured {
  times: number[];
  requests: number;
  sequential: number;
}

/** Times `kind` `RUNS` times, counting the app's KV requests during the timed request only. */
async function measure(kind: Kind): Promise<Measured> {
  const times: number[] = [];
  let requests = 0;
  let sequential = 0;
  for (let i = 0; i < RUNS; i++) {
    await kind.prepare();
    counting.reset();
    times.push(await timed(kind.send));
    const c = counting.counts();
    requests += c.reads + c.commits;
    sequential = Math.max(sequential, c.sequential);
  }
  return { times, requests: requests / RUNS, sequential };
}

// Warm: the token, the session, the record and the limiter's first reads.
await timed(save);
await timed(page);
await timed(mcp); // last: the record is cached at its current version
const commit = new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"] }).outputSync();
console.log(
  `rt_latency: ${RUNS} runs each, ${LATENCY_MS} ms added to every KV Connect answer; ` +
    `deno ${Deno.version.deno} on ${Deno.build.os}/${Deno.build.arch}, ` +
    `${navigator.hardwareConcurrency} cores, commit ${
      new TextDecoder().decode(commit.stdout).trim()
    }`,
);
// The app's own KV requests per run and the most that followed one another (the limiter's
// flushes, on its own timer, are not among them).
console.log("request                                   p50 ms   p99 ms   requests  sequential");
for (const kind of kinds) {
  const { times, requests, sequential } = await measure(kind);
  const p50 = quantile(times, 0.5).toFixed(1).padStart(7);
  const p99 = quantile(times, 0.99).toFixed(1).padStart(7);
  console.log(
    `${kind.name.padEnd(40)} ${p50}  ${p99}   ${requests.toFixed(1).padStart(8)}  ${sequential}`,
  );
}
await app.close();
shared.close();
elsewhere.close();
await server.stop();
