/**
 * The mixed load of `deno task bench:big` (issue #22): members saving a day, loading Today and
 * History, agents calling the 18 tools with their API tokens, OAuth refreshes and sign-ins, spread
 * over a given set of members, from `CONCURRENCY` client loops for a given time. Latency is
 * measured per request kind at the client (a Deno client, so one tool covers cookies, forms and
 * JSON-RPC; both runs of a comparison pay the same client cost).
 */

import type { BigMember } from "./bench_big_build.ts";

/** Client loops running at once. */
const CONCURRENCY = 16;

/** The request kinds of the mix and their share of requests. */
export const KINDS = {
  save: 0.15,
  today: 0.15,
  history: 0.1,
  tool: 0.45,
  refresh: 0.08,
  signin: 0.07,
} as const;
export type Kind = keyof typeof KINDS;

/** Arguments for each of the 18 tools on the 8 columns every member has. */
export const TOOL_CALLS: [string, Record<string, unknown>][] = [
  ["list_columns", {}],
  ["get_overview", {}],
  ["get_entries", { metrics: ["mood", "sleep_hours"], limit: 7 }],
  ["get_aggregates", { metric: "steps" }],
  ["get_summary_stats", { metric: "mood", days: 90 }],
  ["get_streak", { metric: "meditation_min" }],
  ["get_habit_strength", { metric: "workout" }],
  ["get_goal_progress", {}],
  ["get_personal_bests", { metric: "steps" }],
  ["get_trend", { metric: "weight" }],
  ["compare_periods", { metric: "steps", a_start: "2026-09-01", a_end: "2026-09-30" }],
  ["get_weekday_pattern", { metric: "mood" }],
  ["get_correlation", { metric_a: "sleep_hours", metric_b: "mood" }],
  ["find_correlations", { metric: "mood" }],
  ["get_factor_effect", { factor: "workout", outcome: "mood", lag_days: 1 }],
  ["get_anomalies", {}],
  ["get_data_coverage", { days: 90 }],
  ["get_coach_insights", {}],
];

/** What one load run measured, per kind. */
export interface LoadReport {
  seconds: number;
  total: number;
  errors: number;
  kinds: Record<Kind, { n: number; errors: number; p50: number; p99: number; rps: number }>;
  /** The first few error answers, to tell a broken mix from a slow one. */
  samples: string[];
}

/** A member as the load holds them: the refresh token rotates on every refresh. */
interface Client {
  m: BigMember;
  refreshing: boolean;
}

function pickKind(u: number): Kind {
  let acc = 0;
  for (const [kind, share] of Object.entries(KINDS)) {
    acc += share;
    if (u < acc) return kind as Kind;
  }
  return "tool";
}

const json = (body: unknown, bearer?: string): RequestInit => ({
  method: "POST",
  headers: {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
  },
  body: JSON.stringify(body),
});

/** Sends one request of `kind` for `c`; returns the response (body read). */
async function send(url: string, kind: Kind, c: Client, today: string): Promise<Response> {
  const { m } = c;
  switch (kind) {
    case "save": {
      const values = { mood: 1 + Math.floor(Math.random() * 5), steps: 8000 };
      return await fetch(
        `${url}/api/proxy`,
        json({ action: "saveEntry", date: today, values }, m.sessionToken),
      );
    }
    case "today":
    case "history": {
      const path = kind === "today" ? "/app" : "/app/history";
      return await fetch(`${url}${path}`, { headers: { Cookie: `rt_session=${m.sessionToken}` } });
    }
    case "refresh": {
      const body = new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: m.refreshToken,
        client_id: m.clientId,
      });
      const res = await fetch(`${url}/api/oauth/token`, { method: "POST", body });
      if (res.ok) {
        const tokens = await res.clone().json();
        m.refreshToken = tokens.refresh_token;
        m.accessToken = tokens.access_token;
      }
      return res;
    }
    case "signin":
      return await fetch(
        `${url}/api/auth`,
        json({ action: "login", username: m.username, password: m.password }),
      );
    default: {
      const [name, args] = TOOL_CALLS[Math.floor(Math.random() * TOOL_CALLS.length)];
      const call = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args },
      };
      return await fetch(`${url}/api/mcp`, json(call, m.token));
    }
  }
}

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Runs the mix against `url` over `members` for `seconds`. */
export async function runMix(
  url: string,
  members: BigMember[],
  seconds: number,
): Promise<LoadReport> {
  // the members themselves: a refresh rotates their token for every later run too
  const clients: Client[] = members.map((m) => ({ m, refreshing: false }));
  const times = Object.fromEntries(Object.keys(KINDS).map((k) => [k, [] as number[]]));
  const errors = Object.fromEntries(Object.keys(KINDS).map((k) => [k, 0])) as Record<Kind, number>;
  const samples: string[] = [];
  const today = new Date().toISOString().slice(0, 10);
  const started = performance.now();
  const end = started + seconds * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const c = clients[Math.floor(Math.random() * clients.length)];
      let kind = pickKind(Math.random());
      // a refresh token is spent by its refresh: one refresh per member at a time
      if (kind === "refresh" && c.refreshing) kind = "tool";
      if (kind === "refresh") c.refreshing = true;
      const t = performance.now();
      try {
        const res = await send(url, kind, c, today);
        const text = await res.text();
        times[kind].push(performance.now() - t);
        if (!res.ok) {
          errors[kind]++;
          if (samples.length < 5) samples.push(`${kind} ${res.status} ${text.slice(0, 200)}`);
        }
      } catch (err) {
        errors[kind]++;
        if (samples.length < 5) samples.push(`${kind} ${(err as Error).message}`);
      } finally {
        if (kind === "refresh") c.refreshing = false;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const elapsed = (performance.now() - started) / 1000;
  const kinds = {} as LoadReport["kinds"];
  let total = 0;
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const sorted = times[kind].sort((a, b) => a - b);
    total += sorted.length;
    kinds[kind] = {
      n: sorted.length,
      errors: errors[kind],
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      rps: sorted.length / elapsed,
    };
  }
  const errorCount = Object.values(errors).reduce((a, b) => a + b, 0);
  return { seconds: elapsed, total, errors: errorCount, kinds, samples };
}
