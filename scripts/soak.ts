/**
 * `deno task soak`: two service processes on one KV file under mixed load for a while (issue #9):
 * sandbox tools/call, member tools/call with an API token, record writes through /api/proxy, and
 * token create/revoke churn, spread over both processes with bounded concurrency. Prints per
 * minute: requests, 5xx, p50/p99 and each process's RSS; and RSS at start and end.
 *
 * Options: --minutes N (default 10), --concurrency N (default 16), --warmup S (seconds of load
 * before the start RSS is taken: JIT and caches fill first; default 30). Not part of `deno task test`:
 * the targets (RSS within ±10 %, zero 5xx, p99 steady) are read by a person from its output.
 */

import { parseArgs } from "node:util";
import { startProcesses } from "../tests/_processes.ts";
import { seedMember } from "./bench.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    minutes: { type: "string", default: "10" },
    concurrency: { type: "string" },
    warmup: { type: "string", default: "30" },
  },
});
const WARMUP_S = Number(values.warmup);
const MINUTES = Number(values.minutes);
const CONCURRENCY = Number(values.concurrency ?? 16);

/** Resident set size of a process in MB (Linux /proc). */
async function rssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface Minute {
  requests: number;
  errors5xx: number;
  other: Map<number, number>;
  latencies: number[];
}

const newMinute = (): Minute => ({ requests: 0, errors5xx: 0, other: new Map(), latencies: [] });

/** The minute being counted (the reporter swaps in a fresh one each minute). */
const stats = { minute: newMinute() };

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : 0;
}

/** POSTs `body` and books the outcome into the current minute. */
async function call(url: string, path: string, body: string, bearer?: string) {
  const started = performance.now();
  const res = await fetch(url + path, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
    },
    body,
  });
  const text = await res.text();
  stats.minute.latencies.push(performance.now() - started);
  stats.minute.requests++;
  if (res.status >= 500) {
    stats.minute.errors5xx++;
    console.error(`${res.status} ${path}: ${text.slice(0, 200)}`);
  } else if (res.status >= 300) {
    stats.minute.other.set(res.status, (stats.minute.other.get(res.status) ?? 0) + 1);
  }
  return { status: res.status, text };
}

const toolCall = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "get_streak", arguments: { metric: "meditation_min" } },
});

if (import.meta.main) {
  await using procs = await startProcesses({
    count: 2,
    env: { RATE_LIMIT_MULTIPLIER: "100000" },
  });
  const urls = procs.urls;
  const member = await seedMember(urls[0]);
  // Each client churns tokens of its own member: one member's creates are serialised by design
  // (the 20-token cap; the tokens quota allows 30 a minute), different members never contend.
  const churners: string[] = [];
  for (let w = 0; w < CONCURRENCY; w++) {
    const res = await call(
      urls[w % 2],
      "/api/auth",
      JSON.stringify({
        action: "register",
        username: `churn${w}`,
        password: "a long passphrase",
      }),
    );
    churners.push(JSON.parse(res.text).sessionToken);
  }

  const operations: ((url: string, client: number) => Promise<unknown>)[] = [
    (url) => call(url, "/api/sandbox", toolCall),
    (url) => call(url, "/api/mcp", toolCall, member.token),
    (url) => {
      const daysAgo = 1 + Math.floor(Math.random() * 360);
      const date = new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
      const body = { action: "saveEntry", date, values: { mood: 1 + (daysAgo % 5) } };
      return call(url, "/api/proxy", JSON.stringify(body), member.sessionToken);
    },
    async (url, client) => {
      const body = JSON.stringify({ action: "create", name: "churn", scopes: ["read"] });
      const created = await call(url, "/api/tokens", body, churners[client]);
      if (created.status !== 201) return;
      const { id } = JSON.parse(created.text);
      const other = urls[(urls.indexOf(url) + 1) % urls.length];
      const revoke = JSON.stringify({ action: "revoke", id });
      await call(other, "/api/tokens", revoke, churners[client]);
    },
  ];
  // Weights: reads dominate, as in real use.
  const weights = [0, 0, 0, 1, 1, 1, 2, 3];

  const warmEnd = Date.now() + WARMUP_S * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, w) => {
    for (let i = w; Date.now() < warmEnd; i++) {
      await operations[weights[i % weights.length]](urls[i % urls.length], w).catch(() => {});
    }
  }));
  stats.minute = newMinute();
  const rssStart = await Promise.all(procs.pids.map(rssMb));
  console.log(
    `soak: ${MINUTES} min after ${WARMUP_S} s warm-up, ${CONCURRENCY} concurrent clients, ` +
      `2 processes, load average ${Deno.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
  );
  console.log(`RSS at start: ${rssStart.map((r) => r.toFixed(1) + " MB").join(", ")}\n`);
  console.log("| minute | requests | 5xx | other non-2xx | p50 ms | p99 ms | RSS MB (A, B) |");
  console.log("|---|---|---|---|---|---|---|");

  const end = Date.now() + MINUTES * 60_000;
  let total5xx = 0;
  const workers = Array.from({ length: CONCURRENCY }, async (_, w) => {
    let i = w;
    while (Date.now() < end) {
      const op = operations[weights[Math.floor(Math.random() * weights.length)]];
      await op(urls[i++ % urls.length], w).catch((err) => {
        stats.minute.errors5xx++;
        console.error("request failed:", (err as Error).message);
      });
    }
  });
  const reporter = (async () => {
    for (let m = 1; m <= MINUTES; m++) {
      await new Promise((r) =>
        setTimeout(r, Math.max(0, end - (MINUTES - m) * 60_000 - Date.now()))
      );
      const done = stats.minute;
      stats.minute = newMinute();
      total5xx += done.errors5xx;
      const sorted = done.latencies.sort((a, b) => a - b);
      const rss = await Promise.all(procs.pids.map(rssMb));
      const other = [...done.other].map(([s, n]) => `${s}×${n}`).join(" ") || "0";
      console.log(
        `| ${m} | ${done.requests} | ${done.errors5xx} | ${other} | ${
          percentile(sorted, 0.5).toFixed(2)
        } | ${percentile(sorted, 0.99).toFixed(2)} | ${rss.map((r) => r.toFixed(1)).join(", ")} |`,
      );
    }
  })();
  await Promise.all([...workers, reporter]);
  const rssEnd = await Promise.all(procs.pids.map(rssMb));
  console.log(`\nRSS at end: ${rssEnd.map((r) => r.toFixed(1) + " MB").join(", ")}`);
  console.log(
    `RSS change: ${
      rssEnd.map((r, i) => ((r / rssStart[i] - 1) * 100).toFixed(1) + " %").join(", ")
    }; 5xx in all: ${total5xx}; load average ${Deno.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
  );
  for (let i = 0; i < urls.length; i++) {
    const lines = procs.output(i).split("\n").filter((l) => l && !l.includes("listening on"));
    console.log(`process ${"AB"[i]} logged ${lines.length} lines${lines.length ? ", e.g.:" : ""}`);
    for (const line of lines.slice(0, 3)) console.log(`  ${line.slice(0, 160)}`);
  }
}
