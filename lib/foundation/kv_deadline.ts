/**
 * A deadline on every call to a remote KV (issue #21, "Deadlines"). Deno's KV Connect client — the
 * one behind `Deno.openKv(url)` and Deno Deploy's KV — retries a 5xx or a network error without
 * end and never rejects (denokv remote/lib.rs `call_raw`; tests/kv_connect/server.ts), so in an
 * outage every request would hang. `withKvDeadline` wraps the `Deno.Kv` the app is given: each
 * call (`get`, `getMany`, `set`, `delete`, each `list` page, each atomic `commit`, `enqueue`)
 * races a timer, and past the deadline the caller gets `service_busy` (503 with Retry-After).
 *
 * What happens to an abandoned call: it cannot be cancelled (the client's API has no signal), so
 * it stays pending inside Deno's client, retried every ~250 ms, and completes once the KV answers
 * again — a commit is then applied, once. So a commit past its deadline has an UNKNOWN outcome:
 * the error says so (`isOutcomeUnknown`), and nothing retries it blindly (withKvRetry rethrows any
 * AppError at once; the limiter counts a flushed `sum` as applied rather than adding it again).
 *
 * Abandoned calls are bounded: once one call has timed out, the KV counts as down and every new
 * call is refused at once, without reaching the KV (nothing started, nothing saved), until some
 * call completes — the abandoned ones are the probes: Deno's client completes them as soon as the
 * KV answers, and the next call goes through. So an outage holds at most the calls started in
 * the one deadline before it was noticed, whatever its length, and the service recovers by
 * itself. No timer outlives its call.
 */

import { AppError } from "./errors.ts";
import { logEvent } from "./log.ts";

/** Default of `KV_DEADLINE_MS`. */
export const DEFAULT_KV_DEADLINE_MS = 5_000;

/** Why a KV call was given up; the `cause` of the `service_busy` error. */
class KvDeadlineExceeded extends Error {
  constructor(readonly kind: "read" | "commit", readonly started: boolean, ms: number) {
    super(
      started
        ? `KV ${kind} did not answer within ${ms} ms`
        : `KV ${kind} not started: an earlier call is still unanswered`,
    );
    this.name = "KvDeadlineExceeded";
  }
}

/** True for the error of a KV call given up at its deadline (or refused while the KV is down). */
export function isKvDeadline(err: unknown): boolean {
  return err instanceof AppError && err.cause instanceof KvDeadlineExceeded;
}

/**
 * True when a commit was sent and given up: it may still be applied later (once). A caller must
 * not resend a non-idempotent write (a `sum`) on this error.
 */
export function isOutcomeUnknown(err: unknown): boolean {
  return err instanceof AppError && err.cause instanceof KvDeadlineExceeded &&
    err.cause.kind === "commit" && err.cause.started;
}

function deadlineError(cause: KvDeadlineExceeded, ms: number): AppError {
  const message = cause.kind === "commit" && cause.started
    ? "Storage did not answer in time; this change may or may not have been saved. " +
      "Retrying is safe where the request is idempotent; otherwise check before retrying."
    : "Storage did not answer in time; nothing was changed. Retry shortly.";
  // RFC 9110 §10.2.3: a 503 may say when to retry; about one deadline later.
  const retryAfterSeconds = Math.max(1, Math.ceil(ms / 1000));
  return new AppError("service_busy", message, { cause, details: { retryAfterSeconds } });
}

/**
 * The deadline of one wrapped KV, and whether the KV is known not to answer: from a call's
 * timeout until any call completes, new calls are refused at once without reaching the KV (a
 * circuit breaker), so a request in an outage is answered 503 without waiting again, and calls
 * stop piling up in Deno's client.
 */
class Deadline {
  /** Set when a call timed out; cleared when any call completes (the KV answered). */
  #down = false;
  /** Calls past their deadline still pending in Deno's client (for the log). */
  #abandoned = 0;
  constructor(readonly ms: number) {}

  run<T>(kind: "read" | "commit", call: () => Promise<T>): Promise<T> {
    if (this.#down) {
      return Promise.reject(deadlineError(new KvDeadlineExceeded(kind, false, this.ms), this.ms));
    }
    const pending = call();
    pending.then(this.#answered, this.#answered);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.#abandon(pending);
        reject(deadlineError(new KvDeadlineExceeded(kind, true, this.ms), this.ms));
      }, this.ms);
    });
    return Promise.race([pending, timeout]).finally(() => clearTimeout(timer));
  }

  #answered = () => {
    if (!this.#down) return;
    this.#down = false;
    logEvent("info", "KV answers again; calls resume", { abandonedPending: this.#abandoned });
  };

  #abandon(pending: Promise<unknown>): void {
    this.#abandoned++;
    const settled = () => void this.#abandoned--;
    pending.then(settled, settled);
    if (this.#down) return;
    this.#down = true;
    logEvent("warn", "KV did not answer within its deadline; answering 503 until it does", {
      ms: this.ms,
    });
  }
}

const deadlines = new WeakMap<Deno.Kv, Deadline>();

/** The deadline of a KV wrapped by `withKvDeadline`, in ms, or `null` for an unwrapped one. */
export function kvDeadlineOf(kv: Deno.Kv): number | null {
  return deadlines.get(kv)?.ms ?? null;
}

/** A list iterator whose every page fetch has the deadline. */
function listWithDeadline<T>(
  it: Deno.KvListIterator<T>,
  deadline: Deadline,
): Deno.KvListIterator<T> {
  const wrapped = {
    get cursor() {
      return it.cursor;
    },
    next: () => deadline.run("read", () => it.next()),
    [Symbol.asyncIterator]() {
      return wrapped;
    },
  };
  return wrapped as unknown as Deno.KvListIterator<T>;
}

/** An atomic operation whose `commit` has the deadline; its builders chain on the wrapper. */
function atomicWithDeadline(op: Deno.AtomicOperation, deadline: Deadline): Deno.AtomicOperation {
  const wrapped: Deno.AtomicOperation = new Proxy(op, {
    get(target, prop) {
      if (prop === "commit") return () => deadline.run("commit", () => target.commit());
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        return result === target ? wrapped : result;
      };
    },
  });
  return wrapped;
}

/** The KV methods that are one round trip: a read, or a write (whose outcome a timeout leaves open). */
const READS = new Set<PropertyKey>(["get", "getMany"]);
const WRITES = new Set<PropertyKey>(["set", "delete", "enqueue"]);

/**
 * Wraps `kv` so that every call has a deadline of `ms` (see the module comment). `watch`,
 * `listenQueue` and `close` pass through: they are streams or local, not calls with an answer.
 */
export function withKvDeadline(kv: Deno.Kv, ms: number): Deno.Kv {
  const deadline = new Deadline(ms);
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const call = (...args: unknown[]) => value.apply(target, args);
      if (READS.has(prop)) return (...args: unknown[]) => deadline.run("read", () => call(...args));
      if (WRITES.has(prop)) {
        return (...args: unknown[]) => deadline.run("commit", () => call(...args));
      }
      if (prop === "list") return (...args: unknown[]) => listWithDeadline(call(...args), deadline);
      if (prop === "atomic") return () => atomicWithDeadline(call(), deadline);
      return call;
    },
  });
  deadlines.set(wrapped, deadline);
  return wrapped;
}
