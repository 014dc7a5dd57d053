/**
 * The memory a process holds at rest, for measurements run with `--v8-flags=--expose-gc`
 * (tests/process/_cache_heap.ts, scripts/measure_record_cache.ts): the collected heap and what
 * lives outside it (a `DaySeries`' typed arrays, lib/record/day_series.ts).
 *
 * A request's trailing work (the deadline's `finally`, the log line, the response stream's close)
 * runs in later turns and holds that request's record until it does; under load it was still
 * pending at the last `gc()` in about one run of three and counted 0.8 MiB that no cache holds.
 * And the array buffers a collection frees leave the external count only a collection or two
 * later (15 MiB after a load, 3.4 after one more, 1.7 after two): so a timer turn and a
 * collection, until the external count holds still.
 */
export async function memoryAtRest(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --v8-flags=--expose-gc");
  let external = -1;
  for (let round = 0; round < 10; round++) {
    await new Promise((r) => setTimeout(r, 50));
    gc();
    const now = Deno.memoryUsage().external;
    if (now === external) break;
    external = now;
  }
  return Deno.memoryUsage().heapUsed + external;
}
