/**
 * Members' push subscriptions (the W3C Push API's `PushSubscription.toJSON()`, RFC 8030 endpoint
 * plus the RFC 8291 keys): stored per member under a hash of the endpoint, so a browser that
 * subscribes again replaces its own entry. A member may keep at most `MAX_SUBSCRIPTIONS`.
 */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { hashSecret } from "../foundation/secrets.ts";
import { commitKv, readKv } from "../foundation/kv_commit.ts";

/** Browsers (devices) per member: bounds what one reminder costs to send. */
export const MAX_SUBSCRIPTIONS = 10;

/** A base64url string of exactly `bytes` bytes (no padding). */
function base64urlOf(bytes: number, what: string) {
  const length = Math.ceil(bytes * 4 / 3);
  return z.string().regex(/^[A-Za-z0-9_-]+$/, `${what}: base64url`).length(length, `${what}`);
}

/** `PushSubscription.toJSON()` as a browser posts it. */
export const PushSubscriptionInput = z.object({
  endpoint: z.string().url().max(2000),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    // RFC 8291 §3.1: the user agent's P-256 public key, uncompressed (65 bytes)
    p256dh: base64urlOf(65, "keys.p256dh must be a 65-byte P-256 key"),
    // RFC 8291 §3.2: the 16-byte authentication secret
    auth: base64urlOf(16, "keys.auth must be 16 bytes"),
  }).strict(),
}).strict();

/** A subscription as stored. */
export interface StoredSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  createdAt: number;
}

/**
 * Refuses an endpoint the service must not post to: anything but https (RFC 8030 §8: push
 * messages travel over TLS; RFC 8291 protects the content, not the metadata). `http:` on a
 * loopback host only with `allowLoopbackHttp` (tests' local push service). The member chooses the
 * URL, so this is also the SSRF bound: the service posts only encrypted bytes there and tells the
 * member nothing of the answer but whether it was kept.
 */
export function assertPushEndpoint(endpoint: string, allowLoopbackHttp: boolean): void {
  const url = new URL(endpoint);
  if (url.protocol === "https:" && !url.username && !url.password) return;
  const loopback = ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  if (url.protocol === "http:" && loopback && allowLoopbackHttp) return;
  throw new AppError("invalid_request", "endpoint: a push endpoint must be an https URL.");
}

/** The id of a subscription: a hash of its endpoint (one entry per browser). */
export function subscriptionIdOf(endpoint: string): string {
  return hashSecret(endpoint).slice(0, 32);
}

/** The member's subscriptions, oldest first. */
export async function listSubscriptions(
  kv: Deno.Kv,
  memberId: string,
): Promise<Deno.KvEntry<StoredSubscription>[]> {
  const out: Deno.KvEntry<StoredSubscription>[] = [];
  const iter = kv.list<StoredSubscription>({ prefix: keys.pushSubscriptionsOf(memberId) });
  for await (const e of iter) out.push(e);
  return out.sort((a, b) => a.value.createdAt - b.value.createdAt);
}

/**
 * Stores (or renews) a browser's subscription. Throws
 * `invalid_request` when the member already has `MAX_SUBSCRIPTIONS` other browsers.
 */
export async function addSubscription(
  kv: Deno.Kv,
  memberId: string,
  input: z.infer<typeof PushSubscriptionInput>,
  now: number,
): Promise<{ subscriptionId: string; devices: number }> {
  const subscriptionId = subscriptionIdOf(input.endpoint);
  const existing = await readKv(() => listSubscriptions(kv, memberId));
  const others = existing.filter((e) => e.key[2] !== subscriptionId);
  if (others.length >= MAX_SUBSCRIPTIONS) {
    throw new AppError(
      "invalid_request",
      `At most ${MAX_SUBSCRIPTIONS} devices may receive reminders: remove one first.`,
    );
  }
  const stored: StoredSubscription = { endpoint: input.endpoint, keys: input.keys, createdAt: now };
  await commitKv(() => kv.atomic().set(keys.pushSubscription(memberId, subscriptionId), stored));
  return { subscriptionId, devices: others.length + 1 };
}

/** Removes a browser's subscription by id; true when there was one. */
export async function removeSubscription(
  kv: Deno.Kv,
  memberId: string,
  subscriptionId: string,
): Promise<boolean> {
  const key = keys.pushSubscription(memberId, subscriptionId);
  const entry = await readKv(() => kv.get(key));
  if (!entry.value) return false;
  await commitKv(() => kv.atomic().delete(key));
  return true;
}
