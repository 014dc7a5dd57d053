/**
 * wrk runs for the scale sections: a Lua script that posts a fixed JSON-RPC body, optionally varies
 * `X-Forwarded-For` over N distinct addresses (the service runs with TRUST_PROXY=1), and prints the
 * number of responses in every wall-clock second so a stalled second shows.
 */

/** What one wrk run measured. */
export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  /** Responses per whole second of the run (the partial first and last seconds left out). */
  perSecond: number[];
}

/** Options of `runLoad`. */
export interface LoadOptions {
  url: string;
  body: unknown;
  connections: number;
  seconds: number;
  /** Distinct X-Forwarded-For addresses cycled through (1: one client). */
  addresses: number;
  headers?: Record<string, string>;
}

export const GET_STREAK = {
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "get_streak", arguments: { metric: "meditation_min" } },
};

function luaScript(options: LoadOptions): string {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...options.headers,
  };
  return `
wrk.method = "POST"
wrk.body = ${JSON.stringify(JSON.stringify(options.body))}
${
    Object.entries(headers).map(([k, v]) =>
      `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`
    ).join("\n")
  }
local n, addresses = 0, ${options.addresses}
local sec, count = 0, 0
request = function()
  local i = n % addresses
  n = n + 1
  wrk.headers["X-Forwarded-For"] = string.format("10.%d.%d.%d",
    math.floor(i / 65536) % 256, math.floor(i / 256) % 256, i % 256)
  return wrk.format()
end
response = function(status, headers, body)
  local t = os.time()
  if t ~= sec then
    if sec ~= 0 then io.write(string.format("second %d %d\\n", sec, count)) end
    sec, count = t, 0
  end
  count = count + 1
end
`;
}

function parseMs(text: string): number {
  const m = /([\d.]+)(us|ms|s)/.exec(text);
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
}

/** Responses per whole second between `start` and `end` (epoch seconds), zeros included. */
function secondsBetween(text: string, start: number, end: number): number[] {
  const counts = new Map<number, number>();
  for (const m of text.matchAll(/^second (\d+) (\d+)$/gm)) counts.set(Number(m[1]), Number(m[2]));
  const out: number[] = [];
  for (let s = Math.floor(start) + 1; s < Math.floor(end); s++) out.push(counts.get(s) ?? 0);
  return out;
}

/** Runs wrk once (one thread) and parses its report. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const lua = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(lua, luaScript(options));
  const start = Date.now() / 1000;
  const out = await new Deno.Command("wrk", {
    args: [
      "-t1",
      `-c${options.connections}`,
      `-d${options.seconds}s`,
      "--timeout",
      "10s",
      "--latency",
      "-s",
      lua,
      options.url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const end = Date.now() / 1000;
  await Deno.remove(lua);
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) throw new Error(`wrk failed: ${new TextDecoder().decode(out.stderr)}`);
  return { ...parseWrkReport(text), perSecond: secondsBetween(text, start, end) };
}

/** Requests/s, p50, p99 (ms), request and non-2xx counts from wrk's `--latency` report. */
export function parseWrkReport(text: string) {
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN),
    p50: parseMs(/\s50%\s+(\S+)/.exec(text)?.[1] ?? ""),
    p99: parseMs(/\s99%\s+(\S+)/.exec(text)?.[1] ?? ""),
    requests: Number(/(\d+) requests in/.exec(text)?.[1] ?? NaN),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0),
  };
}

/** Runs several wrk loads at once (one per process of a group) and sums them. */
export async function runLoads(all: LoadOptions[]): Promise<LoadResult> {
  const results = await Promise.all(all.map(runLoad));
  const perSecond = results[0].perSecond.map((_, i) =>
    results.reduce((sum, r) => sum + (r.perSecond[i] ?? 0), 0)
  );
  return {
    rps: results.reduce((s, r) => s + r.rps, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    requests: results.reduce((s, r) => s + r.requests, 0),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    perSecond,
  };
}
