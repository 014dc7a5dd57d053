/**
 * The scale sections of `deno task bench` (issue #13): many clients, several processes on one KV
 * file, revoke → refusal across processes, and KV commits per record write. `scripts/bench.ts`
 * calls `scaleSections()`; run alone with `deno run -A --unstable-kv scripts/bench/scale.ts`.
 *
 * Environment: BENCH_SCALE_SECONDS (single-client and multi-process runs, default 15),
 * BENCH_MANY_SECONDS (the many-client run, default 60), BENCH_ADDRESSES (default 50000),
 * BENCH_SCALE_PORT (default 18100), BENCH_ROOT (another checkout to measure, e.g. the "before").
 */

import { commitsSection } from "./commits.ts";
import { rssMb, startGroup } from "./processes.ts";
import { revokeSection } from "./revoke.ts";
import { GET_STREAK, type LoadResult, runLoad, runLoads } from "./wrk_load.ts";

const SECONDS = Number(Deno.env.get("BENCH_SCALE_SECONDS") ?? 15);
const MANY_SECONDS = Number(Deno.env.get("BENCH_MANY_SECONDS") ?? 60);
const ADDRESSES = Number(Deno.env.get("BENCH_ADDRESSES") ?? 50_000);
const CONNECTIONS = 64;

function row(name: string, r: LoadResult, extra = ""): string {
  const empty = r.perSecond.filter((n) => n === 0).length;
  return `| ${name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${
    Math.min(...r.perSecond)
  } | ${empty} | ${r.non2xx} |${extra}`;
}

const HEADER = [
  "| run | req/s | p50 ms | p99 ms | fewest responses in a second | empty seconds | non-2xx |",
  "|---|---|---|---|---|---|---|",
];

/** One client vs 50,000 addresses on one process; RSS before and after the many-client run. */
export async function manyClientsSection(): Promise<string[]> {
  const group = await startGroup({ count: 1, env: { TRUST_PROXY: "1" } });
  try {
    const { url, pid } = group.processes[0];
    const load = { url: `${url}/api/sandbox`, body: GET_STREAK, connections: CONNECTIONS };
    await runLoad({ ...load, seconds: 5, addresses: 1 }); // warm-up (JIT, record cache)
    const single = await runLoad({ ...load, seconds: SECONDS, addresses: 1 });
    const rssBefore = await rssMb(pid);
    const many = await runLoad({ ...load, seconds: MANY_SECONDS, addresses: ADDRESSES });
    const rssAfter = await rssMb(pid);
    const peak = await rssMb(pid, "VmHWM");
    const p99Ratio = many.p99 / single.p99;
    const rpsRatio = many.rps / single.rps;
    const empty = many.perSecond.filter((n) => n === 0).length;
    const growth = rssAfter - rssBefore;
    return [
      `\nMany clients: sandbox get_streak, wrk -t1 -c${CONNECTIONS}, TRUST_PROXY=1, one process\n`,
      ...HEADER,
      row(`one client address, ${SECONDS} s`, single),
      row(`${ADDRESSES} addresses (X-Forwarded-For), ${MANY_SECONDS} s`, many),
      "",
      `- p99 many / single: ${p99Ratio.toFixed(2)} (target ≤ 3) ${p99Ratio <= 3 ? "✓" : "✗"}`,
      `- throughput many / single: ${rpsRatio.toFixed(2)} (target ≥ 0.8) ${
        rpsRatio >= 0.8 ? "✓" : "✗"
      }`,
      `- seconds without a response: ${empty} of ${many.perSecond.length} (target 0) ${
        empty === 0 ? "✓" : "✗"
      }`,
      `- RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MB (growth ${
        growth.toFixed(0)
      } MB, target ≤ 100; peak ${peak.toFixed(0)} MB) ${growth <= 100 ? "✓" : "✗"}`,
    ];
  } finally {
    await group.stop();
  }
}

/** The same load spread over `count` processes (one wrk each) or `deno serve --parallel`. */
async function groupLoad(count: number, parallel: boolean): Promise<LoadResult> {
  const group = await startGroup({ count, parallel });
  try {
    const loads = group.processes.map((p) => ({
      url: `${p.url}/api/sandbox`,
      body: GET_STREAK,
      connections: CONNECTIONS / group.processes.length,
      addresses: 1,
    }));
    await runLoads(loads.map((l) => ({ ...l, seconds: 3 })));
    return await runLoads(loads.map((l) => ({ ...l, seconds: SECONDS })));
  } finally {
    await group.stop();
  }
}

/** 1 process vs 4 processes on one KV file vs `deno serve --parallel` (2 and 4 workers). */
export async function processesSection(): Promise<string[]> {
  const one = await groupLoad(1, false);
  const four = await groupLoad(4, false);
  const serve2 = await groupLoad(2, true);
  const serve4 = await groupLoad(4, true);
  const ratio = (r: LoadResult) => ` ${(r.rps / one.rps).toFixed(2)} |`;
  return [
    `\nSeveral processes on one KV file: sandbox get_streak, ${CONNECTIONS} connections in all, ${SECONDS} s\n`,
    HEADER[0] + " ratio to 1 process |",
    HEADER[1] + "---|",
    row("1 process (deno run)", one, ratio(one)),
    row("4 processes (deno run ×4, one wrk each)", four, ratio(four)),
    row("deno serve --parallel, 2 workers", serve2, ratio(serve2)),
    row("deno serve --parallel, 4 workers (DENO_JOBS=4)", serve4, ratio(serve4)),
  ];
}

/** Every scale section, in order. */
export async function scaleSections(): Promise<string[]> {
  return [
    ...await manyClientsSection(),
    ...await processesSection(),
    ...await revokeSection(),
    ...await commitsSection(),
  ];
}

if (import.meta.main) {
  const only = Deno.args[0];
  const sections: Record<string, () => Promise<string[]>> = {
    many: manyClientsSection,
    processes: processesSection,
    revoke: revokeSection,
    commits: commitsSection,
  };
  const lines = only ? await sections[only]() : await scaleSections();
  console.log(`\n${new Date().toISOString()}, wrk on loopback, 2 cores shared`);
  console.log(lines.join("\n"));
}
