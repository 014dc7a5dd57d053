/**
 * The record and result caches hold what RECORD_CACHE_MB and RESULT_CACHE_MB allow, measured as
 * V8 heap (issue #22). Each case runs tests/process/_cache_heap.ts in its own process with
 * `--expose-gc`: members of real size, an app configured from the environment, agents calling
 * MCP tools through `app.request`; the heap is read after a full collection.
 */

import assert from "node:assert/strict";

const HELPER = new URL("./_cache_heap.ts", import.meta.url).pathname;
const MIB = 1024 * 1024;
/**
 * What the app keeps per member besides the caches (token resolver, limiter, compiled paths):
 * measured 0.6–0.9 MiB for these 33 members with both caches at 0.
 */
const APP_ALLOWANCE = 1 * MIB;

interface Held {
  bytes: number;
  maxBytes: number;
}

interface Measured {
  grown: number;
  records: Held | null;
  results: Held | null;
}

/** Runs the helper with `env` and returns what it measured. */
async function measure(env: Record<string, string>): Promise<Measured> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "--v8-flags=--expose-gc", HELPER],
    env: { DENO_NO_UPDATE_CHECK: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(180_000),
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, text + new TextDecoder().decode(out.stderr));
  return JSON.parse(text.trim().split("\n").at(-1)!);
}

const mib = (n: number) => `${(n / MIB).toFixed(2)} MiB`;

/**
 * The heap the cache filled (`grown` beyond the same run with the cache off) is at most the
 * bound plus 10 %, the cache's own estimate is true to within 10 % of the bound, and the cache
 * is nearly full (the fill is meant to overflow it).
 */
function assertHonoured(name: string, bound: number, on: Measured, off: Measured, held: Held) {
  assert.ok(
    on.grown <= 1.1 * bound + APP_ALLOWANCE,
    `${name}: the heap grew ${mib(on.grown)} with a bound of ${mib(bound)}`,
  );
  const cache = on.grown - off.grown;
  assert.ok(cache <= 1.1 * bound, `${name}: the cache took ${mib(cache)}, bound ${mib(bound)}`);
  assert.ok(
    Math.abs(cache - held.bytes) <= 0.1 * bound,
    `${name}: the cache took ${mib(cache)} and estimated ${mib(held.bytes)}`,
  );
  assert.equal(held.maxBytes, bound);
  assert.ok(held.bytes > 0.8 * bound, `${name}: only ${mib(held.bytes)} held`);
}

Deno.test("RECORD_CACHE_MB: records of a year and of three years fill at most the bound of memory, within 10 %", async () => {
  const [on, off] = await Promise.all([
    measure({ MODE: "records", RECORD_CACHE_MB: "6", RESULT_CACHE_MB: "0" }),
    measure({ MODE: "records", RECORD_CACHE_MB: "0", RESULT_CACHE_MB: "0" }),
  ]);
  assertHonoured("records", 6 * MIB, on, off, on.records!);
});

Deno.test("RESULT_CACHE_MB: tool results of many sizes fill at most the bound of memory, within 10 %", async () => {
  const [on, off] = await Promise.all([
    measure({ MODE: "results", RECORD_CACHE_MB: "0", RESULT_CACHE_MB: "4" }),
    measure({ MODE: "results", RECORD_CACHE_MB: "0", RESULT_CACHE_MB: "0" }),
  ]);
  assertHonoured("results", 4 * MIB, on, off, on.results!);
});
