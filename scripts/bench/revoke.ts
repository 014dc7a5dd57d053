/**
 * Revoke → refusal latency across processes: four processes on one KV file; a token is revoked
 * through A while B, C and D each loop authenticated tool calls with it. Prints, per process, how
 * long after the revocation's response the first refusal came, and how many calls that started
 * after the response were still served (spec: revocation is immediate — must be 0).
 */

import { postJson, registerWriter, startGroup } from "./processes.ts";

/** The writer's own column (registerWriter creates "steps"). */
const STREAK_OF_STEPS = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "get_streak", arguments: { metric: "steps" } },
});

interface Poll {
  startedAt: number;
  endedAt: number;
  status: number;
}

async function pollUntil(url: string, token: string, stop: () => boolean): Promise<Poll[]> {
  const polls: Poll[] = [];
  while (!stop()) {
    const startedAt = performance.now();
    const res = await fetch(`${url}/api/mcp`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${token}`,
      },
      body: STREAK_OF_STEPS,
    });
    await res.body?.cancel();
    polls.push({ startedAt, endedAt: performance.now(), status: res.status });
  }
  return polls;
}

function describe(name: string, polls: Poll[], revokedAt: number): string {
  const before = polls.filter((p) => p.endedAt < revokedAt);
  const servedBefore = before.filter((p) => p.status === 200).length;
  const after = polls.filter((p) => p.startedAt > revokedAt);
  const servedAfter = after.filter((p) => p.status === 200).length;
  const firstRefusal = polls.find((p) => p.status === 401);
  const latency = firstRefusal ? (firstRefusal.endedAt - revokedAt).toFixed(1) : "never";
  return `| ${name} | ${servedBefore} | ${latency} | ${
    after.filter((p) => p.status === 401).length
  } | ${servedAfter} ${servedAfter === 0 && firstRefusal ? "✓" : "✗"} |`;
}

/** Runs the revocation across four processes (A revokes; B, C, D poll). */
export async function revokeSection(): Promise<string[]> {
  const group = await startGroup({ count: 4 });
  try {
    const [a, ...others] = group.processes.map((p) => p.url);
    const session = await registerWriter(a, "revoker");
    const created = await postJson(`${a}/api/tokens`, {
      action: "create",
      name: "revoke-me",
      scopes: ["read"],
    }, session);
    let stop = false;
    const polling = others.map((url) => pollUntil(url, created.token as string, () => stop));
    await new Promise((r) => setTimeout(r, 1000));
    await postJson(`${a}/api/tokens`, { action: "revoke", id: created.id }, session);
    const revokedAt = performance.now();
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    const results = await Promise.all(polling);
    return [
      "\nRevoke → refusal across processes (4 processes on one KV file; revoked on A)\n",
      "| process | calls served before | first 401 after revoke answered (ms) | refused after | served after (must be 0) |",
      "|---|---|---|---|---|",
      ...results.map((polls, i) => describe(["B", "C", "D"][i], polls, revokedAt)),
    ];
  } finally {
    await group.stop();
  }
}
