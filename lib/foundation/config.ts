/** Service configuration, read once from the environment (DESIGN §13). */

import denoJson from "../../deno.json" with { type: "json" };
import type { LogFormat } from "./log.ts";

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
  /**
   * How often the coach polls its due-time index (`COACH_POLL_SECONDS`, lib/coach/worker.ts); on
   * Deno Deploy `Deno.cron` runs the poll, rounded up to whole minutes.
   */
  coachPollMs: number;
}

/** Default interval of the coach's poll, in seconds. */
export const DEFAULT_COACH_POLL_SECONDS = 30;

/** Default debounce of coach runs after a write, in minutes. */
export const DEFAULT_COACH_DEBOUNCE_MINUTES = 10;

/** PBKDF2-SHA256 work factor for production (OWASP Password Storage Cheat Sheet). */
export const PRODUCTION_PASSWORD_ITERATIONS = 600_000;

/** The service version, kept in `deno.json` so there is one place to bump it. */
export const SERVICE_VERSION: string = denoJson.version;

/** The `Api-Version` date in force: the day of the last breaking change (spec "Versioning"). */
export const API_VERSION = "2026-08-22";

/** Builds a `Config` from environment variables, with the documented defaults. */
export function loadConfig(env: Record<string, string | undefined> = Deno.env.toObject()): Config {
  const port = Number(env.PORT ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, got "${env.PORT}"`);
  }
  const baseUrl = (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, "");
  try {
    new URL(baseUrl);
  } catch {
    throw new Error(`BASE_URL must be an absolute URL, got "${env.BASE_URL}"`);
  }
  const multiplier = Number(env.RATE_LIMIT_MULTIPLIER ?? 1);
  if (!(multiplier > 0)) {
    throw new Error(
      `RATE_LIMIT_MULTIPLIER must be a positive number, got "${env.RATE_LIMIT_MULTIPLIER}"`,
    );
  }
  const logFormat = (env.LOG_FORMAT ?? "json") as LogFormat;
  if (!["json", "text", "off"].includes(logFormat)) {
    throw new Error(`LOG_FORMAT must be json, text or off, got "${env.LOG_FORMAT}"`);
  }
  const defaultTier = env.DEFAULT_TIER ?? "free";
  if (defaultTier !== "free" && defaultTier !== "paid") {
    throw new Error(`DEFAULT_TIER must be "free" or "paid", got "${env.DEFAULT_TIER}"`);
  }
  const debounce = Number(env.COACH_DEBOUNCE_MINUTES ?? DEFAULT_COACH_DEBOUNCE_MINUTES);
  if (!(debounce >= 0) || debounce > 24 * 60) {
    throw new Error(
      `COACH_DEBOUNCE_MINUTES must be a number from 0 to 1440, got "${env.COACH_DEBOUNCE_MINUTES}"`,
    );
  }
  const poll = Number(env.COACH_POLL_SECONDS ?? DEFAULT_COACH_POLL_SECONDS);
  if (!(poll >= 1) || poll > 3600) {
    throw new Error(
      `COACH_POLL_SECONDS must be a number from 1 to 3600, got "${env.COACH_POLL_SECONDS}"`,
    );
  }
  return {
    port,
    baseUrl,
    // On Deno Deploy (DENO_DEPLOYMENT_ID is set) the default is the KV database attached to the
    // app, which `Deno.openKv()` opens when given no path ("").
    kvPath: env.KV_URL ?? env.KV_PATH ?? (env.DENO_DEPLOYMENT_ID ? "" : "./data/kv.sqlite3"),
    trustProxy: env.TRUST_PROXY === "1" || env.TRUST_PROXY === "true",
    rateLimitMultiplier: multiplier,
    version: SERVICE_VERSION,
    passwordIterations: PRODUCTION_PASSWORD_ITERATIONS,
    logFormat,
    logSalt: env.LOG_SALT || crypto.randomUUID(),
    metricsToken: env.METRICS_TOKEN || null,
    defaultTier,
    coachDebounceMs: Math.round(debounce * 60_000),
    coachPollMs: Math.round(poll * 1000),
  };
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
