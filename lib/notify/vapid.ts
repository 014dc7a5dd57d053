/**
 * The service's VAPID key pair (RFC 8292): a P-256 key whose public half every browser is given as
 * `applicationServerKey` when it subscribes, and whose private half signs the JWT of every push
 * (RFC 8292 §2). Made on first start (main.ts) and kept in the KV (`push_vapid`), so every instance
 * on that KV signs with the same key and a restart keeps every subscription working. A push
 * service refuses a message signed by another key than the subscription's (RFC 8292 §4), so the
 * key is never rotated by code: deleting it would orphan every subscription.
 */

import webpush from "web-push";
import { keys } from "../foundation/kv_keys.ts";
import { RETRY, withKvRetry } from "../foundation/kv_commit.ts";

/** The stored key pair: base64url, as `web-push` and `PushManager.subscribe` take them. */
export interface VapidKeys {
  /** Uncompressed P-256 point (65 bytes), base64url. */
  publicKey: string;
  /** The private scalar (32 bytes), base64url. */
  privateKey: string;
  createdAt: number;
}

/**
 * The VAPID key pair, made and stored on first use. Two instances starting at once both try a
 * create-only commit (`check` of an absent key); the loser reads the winner's pair.
 */
export async function ensureVapidKeys(kv: Deno.Kv, now = Date.now()): Promise<VapidKeys> {
  const key = keys.pushVapid();
  // a busy KV is tried again; so is a lost race, whose next read finds the winner's pair
  return await withKvRetry(async () => {
    const entry = await kv.get<VapidKeys>(key);
    if (entry.value) return entry.value;
    const pair: VapidKeys = { ...webpush.generateVAPIDKeys(), createdAt: now };
    const res = await kv.atomic().check({ key, versionstamp: null }).set(key, pair).commit();
    return res.ok ? pair : RETRY;
  });
}
