/** Service configuration, read once from the environment (DESIGN §13). */

import denoJson from "../../deno.json" with { type: "json" };
import type { LogFormat } from "./log.ts";
import { DEFAULT_KV_DEADLINE_MS } from "./kv_deadline.ts";
import { getHeapStatistics } from "node:v8";

/** Everything the service reads from its environment. */
export interface Config {
  /** TCP port `deno task start` listens on. */
  port: number;
  /** Public base URL with no trailing slash; every absolute link is built from it (DESIGN §4). */
  baseUrl: string;
  /** Deno KV location: a file path, `:memory:`, a KV Connect URL, or "" (Deno Deploy's own KV). */
  kvPath: string;
  /** When true the client IP is taken from the right-most `X-Forwarded-For` hop (DESIGN §6). */
  trustProxy: boolean;
  /**
   * Multiplies every rate-limit quota. Benchmarks raise it so the limiter still counts every
   * request but never rejects; production leaves it at 1.
   */
  rateLimitMultiplier: number;
  /**
   * `RATE_LIMIT_FLUSH_MS`: how often each instance commits its rate-limit counts (and how old a
   * view of a shared count may get). Default 10 on a local KV file, where a commit is an fsync;
   * 50 on a remote KV, where each is a round trip to the one writer (lib/policy/rate_limit.ts).
   */
  rateLimitFlushMs: number;
  /** Service version (semver), from `deno.json`. */
  version: string;
  /**
   * PBKDF2-SHA256 iterations for new password hashes. Production: 600 000 (OWASP Password
   * Storage Cheat Sheet, 2023). The count is stored in each hash, so tests may lower it.
   */
  passwordIterations: number;
  /** `LOG_FORMAT`: request lines as JSON (default), `text` for humans, or `off`. */
  logFormat: LogFormat;
  /** `LOG_SALT`: salt of the member hash in log lines; random per process when unset. */
  logSalt: string;
  /** `METRICS_TOKEN`: the bearer token `/metrics` requires; `/metrics` is 404 when unset. */
  metricsToken: string | null;
  /** Tier stamped on members who register from now on (`DEFAULT_TIER`, DESIGN §15). */
  defaultTier: "free" | "paid";
  /** Quiet time after a member's last write before the coach runs (`COACH_DEBOUNCE_MINUTES`). */
  coachDebounceMs: number;
  /** `RECORD_CACHE_MB`: bound of the member-record cache, in bytes (issue #22). */
  recordCacheBytes: number;
  /** `RESULT_CACHE_MB`: bound of the MCP result cache, in bytes (issue #22). */
  resultCacheBytes: number;
  /**
   * `KV_DEADLINE_MS`: how long one call to a remote KV (KV Connect, Deploy's KV) may take before
   * the request is answered 503 `service_busy` (lib/foundation/kv_deadline.ts, issue #21).
   */
  kvDeadlineMs: number;
  /**
   * How often the coach polls its due-time index (`COACH_POLL_SECONDS`, lib/coach/worker.ts); on
   * Deno Deploy `Deno.cron` runs the poll, rounded up to whole minutes.
   */
  coachPollMs: number;
  /** How often the reminders' due-time index is polled (`REMINDER_POLL_SECONDS`, issue #24). */
  reminderPollMs: number;
  /**
   * `PUSH_CONTACT`: the `sub` of every VAPID JWT (RFC 8292 §2.1: a `mailto:` or `https:` URI the
   * push service can reach the operator by). Default: `BASE_URL` when it is https, else
   * `mailto:admin@<BASE_URL host>`.
   */
  pushContact: string;
  /**
   * `PUSH_ALLOW_LOOPBACK_HTTP=1` (tests only): accept `http://127.0.0.1…` push endpoints. Otherwise
   * an endpoint must be https (RFC 8030 §8: push over TLS), so the service never posts to plain HTTP.
   */
  pushAllowLoopbackHttp: boolean;
  /**
   * `SMTP_URL` and `SMTP_FROM` (issue #24): where e-mail goes out (password reset, address
   * verification, e-mail reminders). Null when `SMTP_URL` is unset: no e-mail is sent, and the
   * pages say the operator resets passwords.
   */
  smtp: { url: string; from: string } | null;
}

/** Default interval of the reminders' poll, in seconds: reminders are set to the minute. */
export const DEFAULT_REMINDER_POLL_SECONDS = 30;

/** Default interval of the coach's poll, in seconds. */
export const DEFAULT_COACH_POLL_SECONDS = 30;

/** Default debounce of coach runs after a write, in minutes. */
export const DEFAULT_COACH_DEBOUNCE_MINUTES = 10;

/**
 * Defaults of the cache bounds, in MiB (issue #22). The record cache serves every page and tool
 * call of a member: 64 MiB holds ~400 members with a year of eight columns, or ~75 with three years
 * of twelve and a journal. Results are derived JSON strings, mostly of a few kB (a year of raw
 * entries with notes, the largest, a few hundred kB): 16 MiB keeps thousands, as the old
 * 2,000-entry bound meant to. Two settings, not one split: a burst of agent calls must not evict
 * the records every page needs, and a host serving mostly pages may shrink the second alone.
 */
export const DEFAULT_RECORD_CACHE_MB = 64;
export const DEFAULT_RESULT_CACHE_MB = 16;

/** Largest cache bound accepted, in MiB (64 GiB): above it a typo, not a plan. */
const MAX_CACHE_MB = 65_536;

/**
 * A cache bound from `name` in MiB (fractions allowed; 0 keeps nothing) as bytes, or `fallback`
 * MiB when unset or empty.
 */
function cacheBytesOf(env: Record<string, string | undefined>, name: string, fallback: number) {
  const raw = env[name];
  const mb = raw === undefined || raw.trim() === "" ? fallback : Number(raw);
  if (!(mb >= 0 && mb <= MAX_CACHE_MB)) {
    throw new ConfigError(
      `${name} must be a number of MiB from 0 to ${MAX_CACHE_MB}, got "${raw}"`,
    );
  }
  return Math.floor(mb * 1024 * 1024);
}

/**
 * V8 heap the service needs beyond its two caches, in MiB: its own live objects (about 40 MiB after
 * a full collection under `bench:big`'s load, issue #22) and what the requests in flight read.
 */
export const HEAP_BEYOND_CACHES_MB = 96;

/**
 * Stops start-up when the caches cannot fit in the heap V8 may grow to. The start tasks and the
 * Docker image cap V8's old space (`--max-old-space-size`, deno.json): uncapped, V8 lets the heap
 * grow to about four times what survives a collection while collections are cheap, and under
 * `bench:big`'s load the service reached 667 MB RSS for 117 MiB of live objects. A cap lower than
 * the caches' bounds would instead end in V8's fatal out-of-memory error under load, so a setting
 * that cannot fit is refused here, at once, with the flag to raise.
 */
export function checkHeapRoom(
  recordBytes: number,
  resultBytes: number,
  heapLimit = getHeapStatistics().heap_size_limit,
): void {
  const mib = (n: number) => Math.ceil(n / 1024 / 1024);
  const need = recordBytes + resultBytes + HEAP_BEYOND_CACHES_MB * 1024 * 1024;
  if (need <= heapLimit) return;
  throw new ConfigError(
    `RECORD_CACHE_MB and RESULT_CACHE_MB (${mib(recordBytes + resultBytes)} MiB together) need ` +
      `a V8 heap of ${mib(need)} MiB and this process's is ${mib(heapLimit)} MiB: lower them, or ` +
      `raise --v8-flags=--max-old-space-size by the difference`,
  );
}

/** Both cache bounds, refused at start-up when the heap cannot hold them (`checkHeapRoom`). */
function cacheBoundsOf(env: Record<string, string | undefined>) {
  const recordCacheBytes = cacheBytesOf(env, "RECORD_CACHE_MB", DEFAULT_RECORD_CACHE_MB);
  const resultCacheBytes = cacheBytesOf(env, "RESULT_CACHE_MB", DEFAULT_RESULT_CACHE_MB);
  checkHeapRoom(recordCacheBytes, resultCacheBytes);
  return { recordCacheBytes, resultCacheBytes };
}

/** PBKDF2-SHA256 work factor for production (OWASP Password Storage Cheat Sheet). */
export const PRODUCTION_PASSWORD_ITERATIONS = 600_000;

/** The service version, kept in `deno.json` so there is one place to bump it. */
export const SERVICE_VERSION: string = denoJson.version;

/** The `Api-Version` date in force: the day of the last breaking change (spec "Versioning"). */
export const API_VERSION = "2026-08-22";

/**
 * An operator setting the service refuses at start-up. main.ts prints its message (which names
 * the variable) as one log line and exits 78 (EX_CONFIG), with no stack trace.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * The characters of a bearer credential: RFC 6750 §2.1 `b64token`, as lib/http/kernel/auth.ts parses
 * `Authorization: Bearer`. A `METRICS_TOKEN` outside it could never be sent, so it is refused.
 */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Shortest `METRICS_TOKEN` accepted: 16 characters. The token is the only lock on `/metrics` and
 * the health check's detail, with no per-guess cost; the docs suggest `openssl rand -hex 32`.
 */
export const METRICS_TOKEN_MIN_LENGTH = 16;

/** `METRICS_TOKEN`, or null when unset or empty (the endpoint is off). */
function metricsTokenOf(raw: string | undefined): string | null {
  if (!raw) return null;
  if (!B64TOKEN.test(raw)) {
    throw new ConfigError(
      "METRICS_TOKEN may hold only letters, digits and - . _ ~ + / (then = padding): a client " +
        "cannot send any other character in Authorization: Bearer (RFC 6750 §2.1), so /metrics " +
        "could never be reached. Use e.g. `openssl rand -hex 32`.",
    );
  }
  if (raw.length < METRICS_TOKEN_MIN_LENGTH) {
    throw new ConfigError(
      `METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_LENGTH} characters, got ${raw.length}. ` +
        "Use e.g. `openssl rand -hex 32`.",
    );
  }
  return raw;
}

/**
 * Builds a `Config` from environment variables, with the documented defaults. Throws
 * `ConfigError`, naming the variable, for a setting it cannot use.
 */
export function loadConfig(env: Record<string, string | undefined> = Deno.env.toObject()): Config {
  const port = Number(env.PORT ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${env.PORT}"`);
  }
  const baseUrl = (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, "");
  try {
    new URL(baseUrl);
  } catch {
    throw new ConfigError(`BASE_URL must be an absolute URL, got "${env.BASE_URL}"`);
  }
  const multiplier = Number(env.RATE_LIMIT_MULTIPLIER ?? 1);
  if (!(multiplier > 0)) {
    throw new ConfigError(
      `RATE_LIMIT_MULTIPLIER must be a positive number, got "${env.RATE_LIMIT_MULTIPLIER}"`,
    );
  }
  const kvPath = env.KV_URL ?? env.KV_PATH ?? (env.DENO_DEPLOYMENT_ID ? "" : "./data/kv.sqlite3");
  const logFormat = (env.LOG_FORMAT ?? "json") as LogFormat;
  if (!["json", "text", "off"].includes(logFormat)) {
    throw new ConfigError(`LOG_FORMAT must be json, text or off, got "${env.LOG_FORMAT}"`);
  }
  const defaultTier = env.DEFAULT_TIER ?? "free";
  if (defaultTier !== "free" && defaultTier !== "paid") {
    throw new ConfigError(`DEFAULT_TIER must be "free" or "paid", got "${env.DEFAULT_TIER}"`);
  }
  const debounce = Number(env.COACH_DEBOUNCE_MINUTES ?? DEFAULT_COACH_DEBOUNCE_MINUTES);
  if (!(debounce >= 0) || debounce > 24 * 60) {
    throw new ConfigError(
      `COACH_DEBOUNCE_MINUTES must be a number from 0 to 1440, got "${env.COACH_DEBOUNCE_MINUTES}"`,
    );
  }
  const poll = Number(env.COACH_POLL_SECONDS ?? DEFAULT_COACH_POLL_SECONDS);
  if (!(poll >= 1) || poll > 3600) {
    throw new Error(
      `COACH_POLL_SECONDS must be a number from 1 to 3600, got "${env.COACH_POLL_SECONDS}"`,
    );
  }
  const reminderPoll = Number(env.REMINDER_POLL_SECONDS ?? DEFAULT_REMINDER_POLL_SECONDS);
  if (!(reminderPoll >= 1) || reminderPoll > 300) {
    throw new ConfigError(
      `REMINDER_POLL_SECONDS must be a number from 1 to 300, got "${env.REMINDER_POLL_SECONDS}"`,
    );
  }
  return {
    port,
    baseUrl,
    // On Deno Deploy (DENO_DEPLOYMENT_ID is set) the default is the KV database attached to the
    // app, which `Deno.openKv()` opens when given no path ("").
    kvPath,
    trustProxy: env.TRUST_PROXY === "1" || env.TRUST_PROXY === "true",
    rateLimitMultiplier: multiplier,
    rateLimitFlushMs: flushMsOf(env.RATE_LIMIT_FLUSH_MS, kvPath),
    version: SERVICE_VERSION,
    passwordIterations: PRODUCTION_PASSWORD_ITERATIONS,
    logFormat,
    logSalt: env.LOG_SALT || crypto.randomUUID(),
    metricsToken: metricsTokenOf(env.METRICS_TOKEN),
    defaultTier,
    coachDebounceMs: Math.round(debounce * 60_000),
    ...cacheBoundsOf(env),
    kvDeadlineMs: kvDeadlineOf(env.KV_DEADLINE_MS),
    coachPollMs: Math.round(poll * 1000),
    reminderPollMs: Math.round(reminderPoll * 1000),
    pushContact: pushContactOf(env.PUSH_CONTACT, baseUrl),
    pushAllowLoopbackHttp: env.PUSH_ALLOW_LOOPBACK_HTTP === "1",
    smtp: smtpOf(env.SMTP_URL, env.SMTP_FROM, baseUrl),
  };
}

/**
 * `SMTP_URL` (`smtp://` or `smtps://`, optionally `user:pass@`, host and port) and `SMTP_FROM`
 * (default `routine-tracker@<BASE_URL host>`). A URL nodemailer could not use is refused at start,
 * not at the first password reset.
 */
function smtpOf(
  rawUrl: string | undefined,
  rawFrom: string | undefined,
  baseUrl: string,
): { url: string; from: string } | null {
  if (!rawUrl) return null;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ConfigError("SMTP_URL must be a URL like smtps://user:pass@mail.example.org:465");
  }
  if ((url.protocol !== "smtp:" && url.protocol !== "smtps:") || !url.hostname) {
    throw new ConfigError(
      `SMTP_URL must start with smtp:// or smtps:// and name a host, got "${url.protocol}//…"`,
    );
  }
  const from = rawFrom || `routine-tracker@${new URL(baseUrl).hostname}`;
  if (!/^[^\r\n]{1,200}$/.test(from) || !from.includes("@")) {
    throw new ConfigError(`SMTP_FROM must be one address (e.g. "Tracker <me@example.org>")`);
  }
  return { url: rawUrl, from };
}

/** The VAPID contact (RFC 8292 §2.1): `PUSH_CONTACT`, or one derived from the other settings. */
function pushContactOf(raw: string | undefined, baseUrl: string): string {
  if (raw) {
    if (!/^(mailto:\S+@\S+|https:\/\/\S+)$/.test(raw)) {
      throw new ConfigError(`PUSH_CONTACT must be a mailto: or https: URI, got "${raw}"`);
    }
    return raw;
  }
  const url = new URL(baseUrl);
  return url.protocol === "https:" ? baseUrl : `mailto:admin@${url.hostname}`;
}

/** Default `RATE_LIMIT_FLUSH_MS` on a remote KV (KV Connect URL or Deno Deploy's own KV). */
export const DEFAULT_REMOTE_FLUSH_MS = 50;

/**
 * `RATE_LIMIT_FLUSH_MS`: whole milliseconds from 1 to 10,000. On a remote KV every flush is a
 * commit on its one writer (Deploy's primary region, or the single `denokv` node): four busy
 * instances flushing every 10 ms would send it 400 commits a second of counters alone (issue #21
 * item 8). 50 ms is a fifth of that, and spends at most one flush interval more before other
 * instances see a count — far from a limit only; near it every request is an exact commit.
 */
function flushMsOf(raw: string | undefined, kvPath: string): number {
  const remote = kvPath === "" || /^https?:\/\//.test(kvPath);
  const ms = Number(raw || (remote ? DEFAULT_REMOTE_FLUSH_MS : DEFAULT_LOCAL_FLUSH_MS));
  if (!Number.isInteger(ms) || ms < 1 || ms > 10_000) {
    throw new ConfigError(
      `RATE_LIMIT_FLUSH_MS must be an integer from 1 to 10000 (milliseconds), got "${raw}"`,
    );
  }
  return ms;
}

/** Default `RATE_LIMIT_FLUSH_MS` on a local KV file or in memory. */
export const DEFAULT_LOCAL_FLUSH_MS = 10;

/** `KV_DEADLINE_MS`: whole milliseconds, from 50 (a round trip across the world) to 10 minutes. */
function kvDeadlineOf(raw: string | undefined): number {
  const ms = Number(raw || DEFAULT_KV_DEADLINE_MS);
  if (!Number.isInteger(ms) || ms < 50 || ms > 600_000) {
    throw new ConfigError(
      `KV_DEADLINE_MS must be an integer from 50 to 600000 (milliseconds), got "${raw}"`,
    );
  }
  return ms;
}

/**
 * A configuration for tests: in-memory KV, a fixed base URL, and a cheap password work factor
 * (hashes record their own iteration count, so this changes speed, not the code path).
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ BASE_URL: "http://localhost:8000", KV_PATH: ":memory:" }),
    passwordIterations: 1_000,
    logFormat: "off",
    ...overrides,
  };
}
