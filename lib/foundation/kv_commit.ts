/**
 * The one way the service commits to (and retries reads of) Deno KV. Contention is not an error
 * (issue #9): several processes on one SQLite file meet `database is locked` when their commits
 * collide, and a read-modify-write loses its versionstamp check when another writer wins. Both are
 * retried with bounded, jittered exponential backoff; past the bound the caller gets
 * `service_busy` (503 with Retry-After), never `internal`. A commit is atomic, so a retried or
 * abandoned attempt never leaves anything half-done. A full disk is not retried: it is
 * `storage_full` (507) at once (issue #19).
 */

import { AppError } from "./errors.ts";
import { logEvent } from "./log.ts";
import { metrics } from "./metrics.ts";

/** Attempts in all (the first plus retries). */
const MAX_ATTEMPTS = 12;
/** First backoff; doubles each retry up to `MAX_DELAY_MS`: the waits add up to 0.7–1.4 s. */
const BASE_DELAY_MS = 4;
const MAX_DELAY_MS = 250;
/** What a client is told to wait after `service_busy` (RFC 9110 §10.2.3 Retry-After). */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/** Returned by a read-modify-write attempt whose versionstamp check failed: run it again. */
export const RETRY = Symbol("retry");

/** Errors a KV call throws under contention, which a later attempt may not meet. */
export function isTransientKvError(err: unknown): boolean {
  if (err instanceof AppError) return false;
  const message = err instanceof Error ? err.message : String(err);
  return /database is locked|SQLITE_BUSY|database table is locked/i
    .test(message);
}

/**
 * Whether `err` is SQLite's SQLITE_FULL as Deno KV throws it: `TypeError: database or disk is
 * full` (reproduced on a full tmpfs with Deno 2.9; the text is SQLite's own `sqlite3_errstr`).
 */
export function isStorageFullError(err: unknown): boolean {
  if (err instanceof AppError) return false;
  const message = err instanceof Error ? err.message : String(err);
  return /database or disk is full|SQLITE_FULL/i.test(message);
}

/**
 * The `storage_full` error for a KV error `isStorageFullError` recognised, counted in `/metrics`
 * (`routine_tracker_kv_errors_total{kind="full"}`) and logged as one line, not a stack: a full
 * disk refuses every write, and a stack per write would flood the very log that tells the
 * operator (and fill the disk further).
 */
export function storageFullError(cause: unknown): AppError {
  metrics.kvFailed("full");
  logEvent("error", "KV storage full: a write was refused (507 storage_full)", {
    cause: cause instanceof Error ? cause.message : String(cause),
  });
  return new AppError(
    "storage_full",
    "The service's storage is full, so nothing was saved. Reading still works; try again later.",
    { cause },
  );
}

/** Full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"): uniform in [d/2, d]. */
function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return new Promise((r) => setTimeout(r, ceiling / 2 + Math.random() * ceiling / 2));
}

/**
 * Runs `attempt` until it returns something other than `RETRY`, retrying transient KV errors too.
 * Use it for a read-modify-write: read, build the atomic with `.check()`s, commit, and return
 * `RETRY` when `!res.ok`. Any other error is rethrown at once. Throws `service_busy` when the
 * bound is spent.
 */
export async function withKvRetry<T>(attempt: () => Promise<T | typeof RETRY>): Promise<T> {
  let lastError: unknown = null;
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    if (i > 0) await backoff(i - 1);
    try {
      const result = await attempt();
      if (result !== RETRY) return result;
      lastError = null;
      metrics.kvRetried("conflict");
    } catch (err) {
      if (isStorageFullError(err)) throw storageFullError(err);
      if (!isTransientKvError(err)) {
        if (!(err instanceof AppError)) metrics.kvFailed("error");
        throw err;
      }
      lastError = err;
      metrics.kvRetried("busy");
    }
  }
  metrics.kvFailed("busy");
  // One line, no stack: an operator sees contention without a log flood.
  logEvent("warn", "KV busy: retries spent, answering 503", {
    attempts: MAX_ATTEMPTS,
    cause: lastError === null ? "versionstamp checks kept failing" : (lastError as Error).message,
  });
  throw new AppError(
    "service_busy",
    "The service is busy with concurrent changes; retry shortly.",
    { cause: lastError ?? undefined, details: { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS } },
  );
}

/**
 * Commits the atomic operation `build` returns, retrying transient errors (a fresh operation per
 * attempt). Returns the result as is: a failed check (`ok: false`) is the caller's business.
 */
export function commitKv(
  build: () => Deno.AtomicOperation,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  return withKvRetry(() => build().commit());
}

/** Runs a read (or any KV call) with the transient-error retry; a read has no check to fail. */
export function readKv<T>(read: () => Promise<T>): Promise<T> {
  return withKvRetry(read);
}
