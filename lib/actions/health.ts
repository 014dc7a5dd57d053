/** The health check (`POST /api/proxy {"action":"healthCheck"}`, spec "Health-check result"). */

import { z } from "zod";
import type { Clock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { commitKv, readKv } from "../foundation/kv_commit.ts";

/** The body of the health check: only `action`; no credential (spec "POST /api/proxy"). */
export const HealthCheckRequest = z.object({ action: z.literal("healthCheck") }).loose();

/** `HealthReport` as published (200 when healthy, 503 otherwise). */
export const HealthReportSchema = z.object({
  version: z.string().regex(/^\d+\.\d+\.\d+/).meta({ description: "Service version (semver)." }),
  status: z.enum(["healthy", "unhealthy"]),
  timestamp: z.iso.datetime(),
  denoKv: z.enum(["connected", "disconnected"]).meta({
    description: "The storage (Deno KV) connection, proven by a write and read-back.",
  }),
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

/**
 * Proves storage works with a real round trip (write a probe, read it back) rather than
 * reporting a handle that merely exists.
 */
export async function checkHealth(
  kv: Deno.Kv,
  clock: Clock,
  version: string,
): Promise<HealthReport> {
  const now = clock();
  let connected = false;
  try {
    // A key of its own per probe, so concurrent health checks cannot overwrite each other.
    const probe = crypto.randomUUID();
    const key = keys.healthProbe(probe);
    // Contention from other instances is retried (lib/foundation/kv_commit.ts): busy is not unhealthy.
    await commitKv(() => kv.atomic().set(key, now, { expireIn: 60_000 }));
    const back = await readKv(() => kv.get<number>(key));
    connected = back.value === now;
    await commitKv(() => kv.atomic().delete(key));
  } catch {
    connected = false;
  }
  return {
    version,
    status: connected ? "healthy" : "unhealthy",
    timestamp: new Date(now).toISOString(),
    denoKv: connected ? "connected" : "disconnected",
  };
}
