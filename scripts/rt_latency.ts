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
import { openKvConnect, startKvConnectServer } from "../tests/kv_connect/server.ts";

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

const server = await startKvConnectServer();
const config = testConfig({ kvDeadlineMs: 30_000 });
const remote = withKvDeadline(await openKvConnect(server), config.kvDeadlineMs);
/** Another instance's client: its writes are ones this app does not see coming. */
const elsewhere = await openKvConnect(server);
const clock = manualClock(FIXTURE_NOW);
// Written through the server at no latency (its store keeps KV Connect's own key encoding).
const member = await buildThreeYearMember(elsewhere, { clock });
const app = createApp({ kv: remote, clock, config });
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

/** Times `kind` `RUNS` times; KV requests are counted while the timed request runs. */
async function measure(kind: Kind): Promise<{ times: number[]; requests: number }> {
  const times: number[] = [];
  let requests = 0;
  for (let i = 0; i < RUNS; i++) {
    await kind.prepare();
    server.resetCounts();
    times.push(await timed(kind.send));
    const c = server.counts();
    requests += c.snapshot_read + c.atomic_write;
  }
  return { times, requests: requests / RUNS };
}

// Warm: the token, the session, the record and the limiter's first reads, at no latency.
await timed(mcp);
await timed(page);
await timed(save);
server.setLatency(LATENCY_MS);
const commit = new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"] }).outputSync();
console.log(
  `rt_latency: ${RUNS} runs each, ${LATENCY_MS} ms added to every KV Connect answer; ` +
    `deno ${Deno.version.deno} on ${Deno.build.os}/${Deno.build.arch}, ` +
    `${navigator.hardwareConcurrency} cores, commit ${
      new TextDecoder().decode(commit.stdout).trim()
    }`,
);
// KV requests: what the server received while the timed request ran (the limiter's flush may add
// one now and then: it commits on its own timer).
console.log("request                                   p50 ms   p99 ms   KV requests/run");
for (const kind of kinds) {
  const { times, requests } = await measure(kind);
  const p50 = quantile(times, 0.5).toFixed(1).padStart(7);
  const p99 = quantile(times, 0.99).toFixed(1).padStart(7);
  console.log(`${kind.name.padEnd(40)} ${p50}  ${p99}   ${requests.toFixed(1)}`);
}
await app.close();
remote.close();
elsewhere.close();
await server.close();
