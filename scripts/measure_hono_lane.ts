/**
 * What Hono's router and middleware composition cost on the hot path (issue #23, the Hono decision
 * in docs/architecture.md): one process serves the same app twice on loopback — MCP posts on the
 * fast lane (lib/http/mcp/mcp_fast_lane.ts) and through Hono's route — and wrk loads each in turn with
 * sandbox `get_streak`, interleaved rounds, median. A socket is needed: the lane's gain is Deno's
 * cheaper way out for a Response built once with all its headers, which `app.fetch` in process
 * does not take (there, building that native response is pure cost).
 *
 *   deno run -A --unstable-kv scripts/measure_hono_lane.ts [seconds per run, default 5]
 */

import { createApp } from "../main.ts";
import { testConfig } from "../lib/foundation/config.ts";
import { GET_STREAK, runLoad } from "./bench/wrk_load.ts";

const SECONDS = Number(Deno.args[0] ?? 5);
const ROUNDS = 3;

const kv = await Deno.openKv(":memory:");
// The sandbox quota is per address and wrk is one address standing for many clients: lifted.
const config = testConfig({ rateLimitMultiplier: 1e6 });
const apps = {
  lane: createApp({ kv, config, mcpFastLane: true, requestLog: null }),
  hono: createApp({ kv, config, mcpFastLane: false, requestLog: null }),
};
const servers = Object.fromEntries(
  Object.entries(apps).map(([name, app]) => [
    name,
    Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch),
  ]),
) as Record<keyof typeof apps, Deno.HttpServer<Deno.NetAddr>>;

const results: Record<keyof typeof apps, { rps: number; p50: number }[]> = { lane: [], hono: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const name of ["lane", "hono"] as const) {
    const url = `http://127.0.0.1:${servers[name].addr.port}/api/sandbox`;
    const r = await runLoad({
      url,
      body: GET_STREAK,
      connections: 32,
      seconds: SECONDS,
      addresses: 1,
    });
    if (r.non2xx > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers`);
    results[name].push({ rps: r.rps, p50: r.p50 });
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const [lane, hono] = [results.lane, results.hono].map((rs) => ({
  rps: median(rs.map((r) => r.rps)),
  p50: median(rs.map((r) => r.p50)),
}));
console.log(
  `sandbox get_streak, wrk -t1 -c32 -d${SECONDS}s, median of ${ROUNDS} interleaved rounds`,
);
console.log(
  `  fast lane:               ${lane.rps.toFixed(0)} req/s, p50 ${lane.p50.toFixed(2)} ms`,
);
console.log(
  `  Hono route + middleware: ${hono.rps.toFixed(0)} req/s, p50 ${hono.p50.toFixed(2)} ms`,
);
console.log(`  Hono / lane = ${(hono.rps / lane.rps).toFixed(2)}`);
for (const s of Object.values(servers)) await s.shutdown();
for (const app of Object.values(apps)) await app.close();
kv.close();
