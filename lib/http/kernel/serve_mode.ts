/**
 * How `main.ts` runs as a process: under `deno run` (`deno task start`) it listens by itself;
 * under `deno serve` — one worker, or one per core with `--parallel` — the runtime serves its
 * default export and it must not listen. Either way a signal flushes pending counters first.
 */

/**
 * Resolves, once the main module has been evaluated, to whether `deno serve` is serving its
 * default export. Deno 2.9 gives a module no flag for this: `import.meta.main` is true under
 * `deno run` and in every `deno serve --parallel` worker alike, and a default export's `onListen`
 * is called in worker 0 only. What does differ: after evaluating the main module, `deno serve`
 * starts the declarative server through `Deno.serve` (ext/http 00_serve.ts
 * `registerDeclarativeServer`), in every worker, before the window `load` event; `deno run` never
 * does. So `Deno.serve` is observed until `load`, then restored. Call it during the main
 * module's evaluation, and never `await` it there (it settles only after evaluation ends).
 * tests/process/serve_parallel_test.ts runs all three modes, so a Deno that changes this fails it.
 */
export function servedByDenoServe(): Promise<boolean> {
  const deno = Deno as unknown as { serve: typeof Deno.serve };
  const original = deno.serve;
  let called = false;
  deno.serve = function (this: unknown, ...args: unknown[]) {
    called = true;
    return (original as (...a: unknown[]) => Deno.HttpServer).apply(this, args);
  } as typeof Deno.serve;
  return new Promise((resolve) => {
    globalThis.addEventListener("load", () => {
      deno.serve = original;
      resolve(called);
    }, { once: true });
  });
}

/** What a shutdown closes. */
export interface ShutdownTargets {
  /** Flushes pending counters (`App.close`). */
  close(): Promise<void>;
  kv: Deno.Kv;
  /** The server this process started itself (`deno run`); `deno serve` owns its own. */
  server?: Deno.HttpServer;
}

/** Longest a worker waits for the other workers of its process to flush before exiting. */
const PEER_FLUSH_TIMEOUT_MS = 10_000;

/**
 * The `deno serve --parallel` workers of this process, met over a BroadcastChannel: every worker
 * receives the signal, but the first `Deno.exit` ends them all, so each exits only once every
 * worker it knows of has flushed (or after `PEER_FLUSH_TIMEOUT_MS`, so a stuck one cannot hang
 * the shutdown). Under `deno run` there are no peers and this costs nothing.
 */
class Peers {
  readonly #id = crypto.randomUUID();
  readonly #channel = new BroadcastChannel("routine-tracker:workers");
  readonly #known = new Set<string>();
  readonly #flushed = new Set<string>();
  #onChange: () => void = () => {};

  constructor() {
    this.#channel.onmessage = ({ data }: MessageEvent<{ hello?: string; flushed?: string }>) => {
      if (data.hello && !this.#known.has(data.hello)) {
        this.#known.add(data.hello);
        this.#channel.postMessage({ hello: this.#id }); // so a worker that started late knows us
      }
      if (data.flushed) this.#flushed.add(data.flushed);
      this.#onChange();
    };
    this.#channel.postMessage({ hello: this.#id });
  }

  /** Announces this worker's flush and waits for every known peer's. */
  async flushedTogether(): Promise<void> {
    this.#channel.postMessage({ flushed: this.#id });
    const all = () => [...this.#known].every((id) => this.#flushed.has(id));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#onChange = () => all() && resolve();
      timer = setTimeout(resolve, PEER_FLUSH_TIMEOUT_MS);
      if (all()) resolve();
    });
    clearTimeout(timer);
    this.#channel.close();
  }
}

/**
 * On SIGINT or SIGTERM: stop accepting and finish in-flight requests (own server only), flush the
 * rate-limit and access counters, close the KV, then exit 0.
 */
export function shutDownOnSignal(targets: ShutdownTargets): void {
  const peers = new Peers();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    if (targets.server) await targets.server.shutdown();
    await targets.close();
    // Under `deno serve` this worker cannot stop the runtime's server, so the KV stays open for
    // requests still in flight until the process exits.
    if (targets.server) targets.kv.close();
    await peers.flushedTogether();
    Deno.exit(0);
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, stop);
}
