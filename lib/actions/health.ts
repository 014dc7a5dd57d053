/** The health check (`POST /api/proxy {"action":"healthCheck"}`, spec "Health-check result"). */

import { z } from "zod";
import type { Clock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { commitKv, readKv } from "../foundation/kv_commit.ts";
import { logEvent } from "../foundation/log.ts";
import { coachWorkerState } from "../coach/worker.ts";
import { kvDeadlineOf } from "../foundation/kv_deadline.ts";

/**
 * The health check's own deadline for its three KV steps together (issue #21): a probe or load
 * balancer must hear "unhealthy" within its timeout, not hang with the KV. Never longer than the
 * KV's per-call deadline (`KV_DEADLINE_MS`), so the check answers first.
 */
export const HEALTH_DEADLINE_MS = 2_000;

/** The health check's deadline on `kv`: 2 s, or the KV's own deadline if that is shorter. */
export function healthDeadlineMs(kv: Deno.Kv): number {
  return Math.min(HEALTH_DEADLINE_MS, kvDeadlineOf(kv) ?? Infinity);
}

/**
 * What the check answers when not even its steps could run in time (the request waited on the
 * rate limiter's read of a KV that does not answer): unhealthy, storage disconnected.
 */
export function lateHealthReport(clock: Clock, version: string): HealthReport {
  return {
    version,
    status: "unhealthy",
    timestamp: new Date(clock()).toISOString(),
    denoKv: "disconnected",
  };
}

/** The body of the health check: only `action`; no credential (spec "POST /api/proxy"). */
export const HealthCheckRequest = z.object({ action: z.literal("healthCheck") }).loose();

/** What each dependency check found (`failed` names the one that broke). */
export const HealthChecksSchema = z.object({
  kvWrite: z.enum(["ok", "failed", "skipped"]),
  kvRead: z.enum(["ok", "failed", "mismatch", "skipped"]),
  kvDelete: z.enum(["ok", "failed", "skipped"]),
  coachWorker: z.enum(["not_started", "running", "stopped"]).meta({
    description: "This instance's coach queue consumer; reported, not part of `status`.",
  }),
}).strict().meta({
  description:
    "Per-dependency detail, only for the operator (Authorization: Bearer METRICS_TOKEN).",
});

/** `HealthReport` as published (200 when healthy, 503 otherwise). */
export const HealthReportSchema = z.object({
  version: z.string().regex(/^\d+\.\d+\.\d+/).meta({ description: "Service version (semver)." }),
  status: z.enum(["healthy", "unhealthy"]),
  timestamp: z.iso.datetime(),
  denoKv: z.enum(["connected", "disconnected"]).meta({
    description: "The storage (Deno KV) connection, proven by a write and read-back.",
  }),
  checks: HealthChecksSchema.optional(),
}).strict();

/** The four fields returned to any caller. */
export interface HealthReport {
  version: string;
  status: "healthy" | "unhealthy";
  /** ISO 8601 UTC. */
  timestamp: string;
  /** The storage connection (DESIGN §1: the field is named after Deno KV). */
  denoKv: "connected" | "disconnected";
}

/** Which check failed; given to the operator only (the spec's four fields go to anyone). */
export type HealthChecks = z.infer<typeof HealthChecksSchema>;

/** The public report plus the per-check detail. */
export interface HealthResult {
  report: HealthReport;
  checks: HealthChecks;
}

/**
 * Proves storage works with a real round trip (write a probe, read it back, delete it) rather
 * than reporting a handle that merely exists, and records which step failed.
 */
export async function checkHealth(
  kv: Deno.Kv,
  clock: Clock,
  version: string,
): Promise<HealthResult> {
  const now = clock();
  const checks: HealthChecks = {
    kvWrite: "skipped",
    kvRead: "skipped",
    kvDelete: "skipped",
    coachWorker: coachWorkerState(),
  };
  // A key of its own per probe, so concurrent health checks cannot overwrite each other.
  const key = keys.healthProbe(crypto.randomUUID());
  // The steps stop a little before the deadline, so the answer names the step that did not finish
  // (the endpoint answers `lateHealthReport` at the deadline itself).
  const step = stepsUntil(Date.now() + 0.9 * healthDeadlineMs(kv));
  // Contention from other instances is retried (lib/foundation/kv_commit.ts): busy is not unhealthy.
  // A probe written past the deadline may land later; it expires on its own (`expireIn`).
  checks.kvWrite = await step(() =>
    commitKv(() => kv.atomic().set(key, now, { expireIn: 60_000 }))
  );
  if (checks.kvWrite === "ok") {
    let back: unknown;
    checks.kvRead = await step(async () => (back = (await readKv(() => kv.get(key))).value));
    if (checks.kvRead === "ok" && back !== now) checks.kvRead = "mismatch";
    checks.kvDelete = await step(() => commitKv(() => kv.atomic().delete(key)));
  }
  const connected = checks.kvWrite === "ok" && checks.kvRead === "ok" && checks.kvDelete === "ok";
  if (!connected) logEvent("warn", "health check failed", checks);
  return {
    report: {
      version,
      status: connected ? "healthy" : "unhealthy",
      timestamp: new Date(now).toISOString(),
      denoKv: connected ? "connected" : "disconnected",
    },
    checks,
  };
}

/**
 * Runs the check's steps against one deadline (`until`, epoch ms): a step not done by then failed,
 * and a step after it is not started (its KV call would only be abandoned).
 */
function stepsUntil(until: number): (run: () => Promise<unknown>) => Promise<"ok" | "failed"> {
  return async (run) => {
    const left = until - Date.now();
    if (left <= 0) return "failed";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"failed">((r) => timer = setTimeout(() => r("failed"), left));
    const done = run().then(() => "ok" as const, () => "failed" as const);
    try {
      return await Promise.race([done, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}
