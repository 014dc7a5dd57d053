/** Shared test set-up: a fresh in-memory KV and app per test, optionally on a real port. */

import { type App, createApp } from "../main.ts";
import { type ManualClock, manualClock } from "../lib/foundation/clock.ts";
import { type Config, testConfig } from "../lib/foundation/config.ts";
import type { Deprecation } from "../lib/policy/deprecation.ts";
import type { ClientMetadataFetcher } from "../lib/oauth/client_metadata_document.ts";
import { openLimitedKv } from "./_kv_limits.ts";

/**
 * Every KV the helpers open is limited to what the strictest supported KV allows (10 checks per
 * atomic, …; tests/_kv_limits.ts), so a commit that only the local SQLite KV accepts fails a test.
 * Tests that open their own `:memory:` KV use `openLimitedKv()` too.
 */
export { openLimitedKv };

/** An app on a fresh in-memory KV with a manual clock. */
export interface TestApp extends AsyncDisposable {
  app: App;
  kv: Deno.Kv;
  clock: ManualClock;
  /** `app.request` with a base URL, for readability. */
  request(path: string, init?: RequestInit): Promise<Response>;
}

/** Options of `makeApp`. */
export interface MakeAppOptions {
  config?: Partial<Config>;
  deprecations?: readonly Deprecation[];
  clock?: ManualClock;
  kv?: Deno.Kv;
  /** Stub for OAuth Client ID Metadata Document fetches (no public network in tests). */
  clientMetadataFetcher?: ClientMetadataFetcher;
}

/** Builds an app on a fresh limited `:memory:` KV (or the given one). Dispose with `await using`. */
export async function makeApp(options: MakeAppOptions = {}): Promise<TestApp> {
  const ownKv = !options.kv;
  const kv = options.kv ?? await openLimitedKv();
  const clock = options.clock ?? manualClock();
  const app = createApp({
    kv,
    clock,
    config: testConfig(options.config),
    deprecations: options.deprecations,
    clientMetadataFetcher: options.clientMetadataFetcher,
  });
  return {
    app,
    kv,
    clock,
    request: (path, init) => Promise.resolve(app.request(path, init)),
    async [Symbol.asyncDispose]() {
      await app.close();
      if (ownKv) kv.close();
    },
  };
}

/** A running server on 127.0.0.1 with a random port, for real clients. */
export interface TestServer extends AsyncDisposable {
  url: string;
  app: App;
  kv: Deno.Kv;
  clock: ManualClock;
}

/** Starts the app on a real loopback port with `BASE_URL` set to it. */
export async function startServer(options: MakeAppOptions = {}): Promise<TestServer> {
  const kv = options.kv ?? await openLimitedKv();
  const clock = options.clock ?? manualClock();
  const ac = new AbortController();
  let resolvePort: (port: number) => void;
  const portReady = new Promise<number>((r) => (resolvePort = r));
  let app: App | null = null;
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: ({ port }) => resolvePort(port),
  }, (req, info) => app!.fetch(req, info));
  const port = await portReady;
  const url = `http://127.0.0.1:${port}`;
  app = createApp({
    kv,
    clock,
    config: testConfig({ baseUrl: url, port, ...options.config }),
    deprecations: options.deprecations,
    clientMetadataFetcher: options.clientMetadataFetcher,
  });
  return {
    url,
    app,
    kv,
    clock,
    async [Symbol.asyncDispose]() {
      ac.abort();
      await server.finished;
      await app!.close();
      if (!options.kv) kv.close();
    },
  };
}

/** POSTs a JSON body. */
export function jsonPost(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}
