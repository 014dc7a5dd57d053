/**
 * A KV Connect server for tests (issue #21): lets `Deno.openKv("http://127.0.0.1:<port>")` — Deno's
 * real remote KV client, the code path production runs on Deno Deploy KV or a `denokv` server —
 * run on this machine, where neither engine can be reached or installed.
 *
 * It speaks the published protocol (denoland/denokv `proto/kv-connect.md`, messages of
 * `proto/schema/datapath.proto`): the metadata exchange (`POST /` with the access token as bearer,
 * protocol versions 2 and 3), `POST /v2/snapshot_read`, `POST /v2/atomic_write` and the streaming
 * `POST /v2/watch`. Data lives in a local SQLite `Deno.Kv` (see store.ts for the mapping).
 * Requests outside denokv's limits are refused with 400 and denokv's text (limits.ts); an atomic
 * with an enqueue is refused ("Enqueue operations are not supported in KV Connect").
 *
 * For tests: `latencyMs` (added before every answer), an outage switch (every request answered
 * 503 while on), per-endpoint request counts (round-trip budgets), the access token checked.
 *
 * What it cannot prove: anything about Deno Deploy's or denokv's own engine — real network
 * latency and its spread, replicas, FoundationDB's conflict detection and retries under
 * contention, throughput, durability. Writes here are serialised by one local SQLite store, so
 * commits never conflict except through their checks. It proves how the service behaves behind
 * Deno's real KV Connect client: queueless, HTTP/2, 400s on limits, retries on 5xx.
 *
 * Deno's client as observed here (Deno 2.9.6; asserted in server_test.ts where marked):
 * - `Deno.openKv(url)` performs the metadata exchange at once; a refused token rejects it with
 *   "Could not open Deno KV database: the metadata endpoint at '<url>/' responded with status 401
 *   Unauthorized: Invalid access token." (asserted). The first data call does a second exchange.
 * - A 400 rejects the call with "KV Connect failed to call '<url>/v2/atomic_write' (status=400 Bad
 *   Request): <server text>" (asserted for the 10-check limit).
 * - An atomic with an enqueue, and `kv.enqueue`, reject with "Enqueue operations are not supported
 *   in KV Connect" before any request (asserted).
 * - A 503 is retried without end and the call never rejects (asserted for 2 s): a data call every
 *   ~250 ms (8 attempts per call in 2 s), each logged to stderr as "KV Connect failed to call …
 *   (status=503 …)"; it completes as soon as the outage ends, a `sum` applied once. A metadata
 *   exchange in an outage backs off further (attempts seen at 0.2 s, 7.2 s and 12.4 s). So a
 *   deadline must come from the caller (issue #21, "Deadlines").
 *
 * For multi-process tests, start the server inside the test process (so the test keeps the
 * outage and latency switches and the counts) and give the processes `KV_URL=<url>` and
 * `DENO_KV_ACCESS_TOKEN=<token>`. The CLI serves a KV file on its own when no switch is needed.
 *
 * CLI, for multi-process tests (prints `listening on http://127.0.0.1:<port>` once serving):
 *   deno run -A --unstable-kv tests/kv_connect/server.ts --port 0 --path /tmp/kv.sqlite3 \
 *     [--token T] [--latency-ms N]
 */
import { decodeAtomicWrite, decodeSnapshotRead, decodeWatch } from "./protocol.ts";
import { AW_CHECK_FAILURE, AW_SUCCESS } from "./protocol.ts";
import { encodeAtomicWriteOutput, encodeSnapshotReadOutput } from "./protocol.ts";
import { checkAtomicWrite, checkReadRanges, checkWatchKeys } from "./limits.ts";
import { BadRequest, commitWrite, readRanges } from "./store.ts";
import { watchStream } from "./watch.ts";

/** Options of `startKvConnectServer`. */
export interface KvConnectServerOptions {
  /** The local KV file to store into; default `":memory:"`. Ignored when `kv` is given. */
  path?: string;
  /** A local KV to store into (the caller keeps it open after `close()`). */
  kv?: Deno.Kv;
  /** Port on 127.0.0.1; default 0 (any free port). */
  port?: number;
  /** The access token clients must send (`DENO_KV_ACCESS_TOKEN`); default `TEST_TOKEN`. */
  token?: string;
  /** Milliseconds added before every answer; default 0. */
  latencyMs?: number;
}

/** Requests received per endpoint (also those refused or answered 503). */
export interface KvConnectCounts {
  metadata: number;
  snapshot_read: number;
  atomic_write: number;
  watch: number;
}

/** A running server. */
export interface KvConnectServer extends AsyncDisposable {
  /** The URL to give `Deno.openKv` / `KV_URL`, e.g. `http://127.0.0.1:41234`. */
  url: string;
  token: string;
  /** While on, every request is answered 503 (Deno's client retries those without end). */
  setOutage(on: boolean): void;
  setLatency(ms: number): void;
  counts(): KvConnectCounts;
  resetCounts(): void;
  close(): Promise<void>;
}

/** The token used when none is given (denokv requires at least 12 characters). */
export const TEST_TOKEN = "kv-connect-test-token";
/** denokv serves one database, with the nil UUID. */
const DATABASE_ID = "00000000-0000-0000-0000-000000000000";

interface State {
  kv: Deno.Kv;
  token: string;
  latencyMs: number;
  outage: boolean;
  counts: KvConnectCounts;
  watches: Set<ReadableStream<Uint8Array>>;
  /** The last store operation: reads and writes run one at a time, so a read of several ranges
   * (a `getMany`) is one snapshot, as the protocol's name promises. */
  queue: Promise<unknown>;
}

/** Runs `op` once every store operation before it has finished. */
function serialised<T>(state: State, op: () => Promise<T>): Promise<T> {
  const run = state.queue.then(op, op);
  state.queue = run.catch(() => {});
  return run;
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain" } });
}

function protobuf(body: Uint8Array): Response {
  return new Response(body as Uint8Array<ArrayBuffer>, {
    headers: { "content-type": "application/x-protobuf" },
  });
}

function bearerIs(req: Request, token: string): Response | null {
  const [scheme, value] = (req.headers.get("authorization") ?? "").split(" ", 2);
  if (value === undefined) return text(401, "Malformed authorization header.");
  if (scheme.toLowerCase() !== "bearer" || value !== token) {
    return text(401, "Invalid access token.");
  }
  return null;
}

/** The metadata exchange (kv-connect.md "Metadata Exchange"; denokv `metadata_endpoint`). */
async function metadata(req: Request, state: State): Promise<Response> {
  const body = await req.json().catch(() => null) as { supportedVersions?: unknown } | null;
  if (!body || !Array.isArray(body.supportedVersions)) {
    return text(400, "The server requires at least protocol version 2. Use Deno 1.38.0 or newer.");
  }
  const version = [3, 2].find((v) => (body.supportedVersions as unknown[]).includes(v));
  if (!version) {
    return text(
      400,
      "The server could not negotiate a protocol version. The server requires protocol version 2 or 3.",
    );
  }
  const refused = bearerIs(req, state.token);
  if (refused) return refused;
  return Response.json({
    version,
    databaseId: DATABASE_ID,
    endpoints: [{ url: "/v2", consistency: "strong" }],
    token: state.token,
    expiresAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
  });
}

/** The checks every data-path request passes (denokv `authentication_middleware`). */
function dataPathRefusal(req: Request, state: State): Response | null {
  const version = req.headers.get("x-denokv-version");
  if (version !== "2" && version !== "3") return text(400, "Expected protocol version 2.");
  const refused = bearerIs(req, state.token);
  if (refused) return refused;
  if (req.headers.get("x-denokv-database-id") !== DATABASE_ID) {
    return text(400, "Invalid database id.");
  }
  return null;
}

async function snapshotRead(body: Uint8Array, state: State): Promise<Response> {
  const ranges = decodeSnapshotRead(body);
  checkReadRanges(ranges);
  const entries = await serialised(state, () => readRanges(state.kv, ranges));
  return protobuf(encodeSnapshotReadOutput(entries));
}

async function atomicWrite(body: Uint8Array, state: State): Promise<Response> {
  const write = decodeAtomicWrite(body);
  checkAtomicWrite(write);
  const versionstamp = await serialised(state, () => commitWrite(state.kv, write));
  return protobuf(
    versionstamp
      ? encodeAtomicWriteOutput(AW_SUCCESS, versionstamp)
      : encodeAtomicWriteOutput(AW_CHECK_FAILURE),
  );
}

function watch(body: Uint8Array, state: State): Response {
  const keys = decodeWatch(body);
  checkWatchKeys(keys);
  const stream = watchStream(state.kv, keys, () => state.watches.delete(stream));
  state.watches.add(stream);
  return new Response(stream, { headers: { "content-type": "application/octet-stream" } });
}

const DATA_PATH: Record<string, (body: Uint8Array, state: State) => Promise<Response> | Response> =
  {
    snapshot_read: snapshotRead,
    atomic_write: atomicWrite,
    watch,
  };

async function dataPath(req: Request, name: string, state: State): Promise<Response> {
  const refused = dataPathRefusal(req, state);
  if (refused) return refused;
  const body = new Uint8Array(await req.arrayBuffer());
  try {
    return await DATA_PATH[name](body, state);
  } catch (e) {
    if (e instanceof BadRequest) return text(400, e.message);
    // A body that is not the message: denokv answers "Request protobuf is invalid: …" (400).
    if (e instanceof Error && !(e instanceof TypeError)) {
      return text(400, `Request protobuf is invalid: ${e.message}.`);
    }
    // Deno's client retries a 5xx without end, so say why on stderr: a test would just hang.
    console.error("kv_connect server: internal error", e);
    return text(500, "An internal server error occurred.");
  }
}

/** Which counter a request belongs to, or null for an unknown address. */
function endpointOf(req: Request): keyof KvConnectCounts | null {
  const path = new URL(req.url).pathname;
  if (req.method !== "POST") return null;
  if (path === "/") return "metadata";
  const m = path.match(/^\/v2\/(snapshot_read|atomic_write|watch)$/);
  return m ? m[1] as keyof KvConnectCounts : null;
}

async function handle(req: Request, state: State): Promise<Response> {
  const endpoint = endpointOf(req);
  if (endpoint) state.counts[endpoint]++;
  if (state.latencyMs > 0) await new Promise((r) => setTimeout(r, state.latencyMs));
  if (state.outage) {
    await req.body?.cancel();
    return text(503, "The server is temporarily unavailable, try again later.");
  }
  if (!endpoint) return text(404, "Resource not found.");
  if (endpoint === "metadata") return await metadata(req, state);
  return await dataPath(req, endpoint, state);
}

function zeroCounts(): KvConnectCounts {
  return { metadata: 0, snapshot_read: 0, atomic_write: 0, watch: 0 };
}

/** Starts a KV Connect server on 127.0.0.1. */
export async function startKvConnectServer(
  opts: KvConnectServerOptions = {},
): Promise<KvConnectServer> {
  const kv = opts.kv ?? await Deno.openKv(opts.path ?? ":memory:");
  const state: State = {
    kv,
    token: opts.token ?? TEST_TOKEN,
    latencyMs: opts.latencyMs ?? 0,
    outage: false,
    counts: zeroCounts(),
    watches: new Set(),
    queue: Promise.resolve(),
  };
  const { promise: listening, resolve } = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: opts.port ?? 0, onListen: resolve },
    (req) => handle(req, state),
  );
  const addr = await listening;
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      for (const stream of state.watches) await stream.cancel().catch(() => {});
      await server.shutdown();
      if (!opts.kv) kv.close();
    })();
  return {
    url: `http://127.0.0.1:${addr.port}`,
    token: state.token,
    setOutage: (on) => void (state.outage = on),
    setLatency: (ms) => void (state.latencyMs = ms),
    counts: () => ({ ...state.counts }),
    resetCounts: () => void (state.counts = zeroCounts()),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** `NO_PROXY` with 127.0.0.1 added: an `HTTP_PROXY` in CI must not carry loopback traffic. */
function noProxy(): string {
  const current = Deno.env.get("NO_PROXY") ?? Deno.env.get("no_proxy") ?? "";
  return current.split(",").includes("127.0.0.1")
    ? current
    : [current, "127.0.0.1"].filter(Boolean).join(",");
}

/** The environment a child process needs to use the server as its KV (`KV_URL` and the token). */
export function kvConnectEnv(
  server: Pick<KvConnectServer, "url" | "token">,
): Record<string, string> {
  return { KV_URL: server.url, DENO_KV_ACCESS_TOKEN: server.token, NO_PROXY: noProxy() };
}

/** Opens the server through Deno's real remote client in this process. */
export async function openKvConnect(
  server: Pick<KvConnectServer, "url" | "token">,
): Promise<Deno.Kv> {
  Deno.env.set("DENO_KV_ACCESS_TOKEN", server.token);
  Deno.env.set("NO_PROXY", noProxy());
  return await Deno.openKv(server.url);
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

if (import.meta.main) {
  const args = Deno.args;
  const server = await startKvConnectServer({
    port: Number(flag(args, "port") ?? 0),
    path: flag(args, "path") ?? ":memory:",
    token: flag(args, "token"),
    latencyMs: Number(flag(args, "latency-ms") ?? 0),
  });
  console.log(`listening on ${server.url}`);
  Deno.addSignalListener("SIGTERM", () => server.close().then(() => Deno.exit(0)));
}
