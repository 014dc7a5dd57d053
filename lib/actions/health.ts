/** The health check (`POST /api/proxy {"action":"healthCheck"}`, spec "Health-check result"). */

import { z } from "zod";
import type { Clock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { commitKv, readKv } from "../foundation/kv_commit.ts";
import { logEvent } from "../foundation/log.ts";
import { coachWorkerState } from "../coach/worker.ts";

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
  // Contention from other instances is retried (lib/foundation/kv_commit.ts): busy is not unhealthy.
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

async function step(run: () => Promise<unknown>): Promise<"ok" | "failed"> {
  try {
    await run();
    return "ok";
  } catch {
    return "failed";
  }
}
