/**
 * Run by tests/process/cache_bounds_test.ts in its own process with `--v8-flags=--expose-gc`, so
 * that the heap can be measured after a full collection. Builds members of different sizes
 * (tests/_record_fixtures.ts) on a fresh in-memory KV, an app configured by `loadConfig` from this
 * process's RECORD_CACHE_MB and RESULT_CACHE_MB, then has every member's agent call MCP tools
 * through `app.request`, and prints as JSON how much the heap grew while the caches filled.
 *
 *   MODE=records: one `list_columns` call per member (24 with a year of 8 columns, 16 with three
 *                 years of 12), interleaved, so records of every size are loaded and evicted.
 *   MODE=results: `get_entries` pages of 10 to 360 days of three-year members: many results of
 *                 different sizes (set RECORD_CACHE_MB=0 so only results are held).
 */

import { createApp } from "../../main.ts";
import { manualClock } from "../../lib/foundation/clock.ts";
import { loadConfig } from "../../lib/foundation/config.ts";
import { parseDay } from "../../lib/foundation/dates.ts";
import { buildMember, ONE_YEAR, THREE_YEARS } from "../_record_fixtures.ts";
import { memoryAtRest } from "../_memory_at_rest.ts";

const env = Deno.env.toObject();
const kv = await Deno.openKv(":memory:");
const clock = manualClock(Date.UTC(2026, 10, 22, 12));
const lastDay = parseDay("2026-11-22")!;

const one = [], three = [];
for (let i = 0; i < 24; i++) {
  one.push(
    await buildMember(kv, clock, { username: `one${i}`, shape: ONE_YEAR, seed: i, lastDay }),
  );
}
for (let i = 0; i < 16; i++) {
  const seed = 100 + i;
  three.push(
    await buildMember(kv, clock, { username: `three${i}`, shape: THREE_YEARS, seed, lastDay }),
  );
}
const warm = await buildMember(kv, clock, {
  username: "warm",
  shape: { days: 3, columns: 2, journals: 0 },
  seed: 1,
  lastDay,
});

const config = {
  ...loadConfig({
    BASE_URL: "http://localhost:8000",
    KV_PATH: ":memory:",
    LOG_FORMAT: "off",
    RECORD_CACHE_MB: env.RECORD_CACHE_MB,
    RESULT_CACHE_MB: env.RESULT_CACHE_MB,
  }),
  passwordIterations: 1_000,
  rateLimitMultiplier: 1_000,
};
const app = createApp({ kv, clock, config });

/** One MCP `tools/call` by the member's agent; its result must be a success. */
async function call(token: string, name: string, args: Record<string, unknown>) {
  const res = await app.request("/api/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  const body = await res.json();
  if (res.status !== 200 || body.error || body.result?.isError) {
    throw new Error(`${name}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
}

// Warm the code paths (and the small member's record) before the baseline.
await call(warm.token, "list_columns", {});
await call(warm.token, "get_entries", { limit: 10 });
const before = await memoryAtRest();

if (env.MODE === "results") {
  for (let limit = 10; limit <= 360; limit += 10) {
    for (const member of three) await call(member.token, "get_entries", { limit });
  }
} else {
  for (let i = 0; i < one.length; i++) {
    await call(one[i].token, "list_columns", {});
    // two three-year members after every third one-year member
    if (i % 3 !== 2) continue;
    const after = ((i - 2) / 3) * 2;
    for (const member of three.slice(after, after + 2)) {
      await call(member.token, "list_columns", {});
    }
  }
}
const grown = await memoryAtRest() - before;
const records = app.deps.access.records as { held?: unknown };
const results = app.deps.mcpResults as { held?: unknown };
console.log(
  JSON.stringify({ grown, records: records.held ?? null, results: results.held ?? null }),
);
await app.close();
kv.close();
