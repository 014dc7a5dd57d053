/**
 * Sends one Web Push message: `web-push` encrypts the payload (RFC 8291, `aes128gcm` of RFC 8188)
 * and signs the VAPID JWT (RFC 8292); the request itself goes out by `fetch`, with a deadline, so a
 * slow push service cannot hold a poll and an `http:` test endpoint works the same way.
 *
 * The payload is the one format the service worker reads (`static/sw.js`, the offline lane):
 * `{"title": string, "body": string, "url": string}` — `url` a same-origin path to open on tap.
 */

import webpush from "web-push";
import { logEvent } from "../foundation/log.ts";
import { commitKv, readKv } from "../foundation/kv_commit.ts";
import type { VapidKeys } from "./vapid.ts";
import { listSubscriptions, type StoredSubscription } from "./subscriptions.ts";

/** What the service worker shows: a notification titled `title`, opening `url` when tapped. */
export interface PushPayload {
  title: string;
  body: string;
  /** A path on this service (`/app`, `/app?day=…`). */
  url: string;
}

/** What sending needs beyond the subscription. */
export interface PushSender {
  vapid: VapidKeys;
  /** The JWT's `sub` (RFC 8292 §2.1). */
  contact: string;
  /** Seconds the push service may keep an undelivered message (RFC 8030 §5.2 `TTL`). */
  ttlSeconds?: number;
}

/** How one delivery went: `gone` means the push service no longer knows the subscription. */
export type PushResult = "sent" | "gone" | "failed";

/** A push service's answer within this, or the delivery counts as failed. */
const SEND_TIMEOUT_MS = 10_000;

/** Sends `payload` to one subscription. Never throws. */
export async function sendPush(
  sender: PushSender,
  subscription: Pick<StoredSubscription, "endpoint" | "keys">,
  payload: PushPayload,
): Promise<PushResult> {
  try {
    const details = webpush.generateRequestDetails(subscription, JSON.stringify(payload), {
      vapidDetails: {
        subject: sender.contact,
        publicKey: sender.vapid.publicKey,
        privateKey: sender.vapid.privateKey,
      },
      TTL: sender.ttlSeconds ?? 4 * 3600,
      contentEncoding: "aes128gcm",
      // RFC 8030 §5.3: a reminder is worth waking the device for, not urgent
      urgency: "normal",
    });
    // fetch sets Content-Length from the body itself
    const headers = Object.entries(details.headers as Record<string, string | number>)
      .filter(([name]) => name.toLowerCase() !== "content-length")
      .map(([name, value]): [string, string] => [name, String(value)]);
    const res = await fetch(details.endpoint, {
      method: "POST",
      headers,
      body: new Uint8Array(details.body as Uint8Array),
      redirect: "manual",
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await res.body?.cancel();
    // RFC 8030 §7.3: an expired subscription is answered 404; push services answer 410 Gone for
    // one the user agent unsubscribed. Either way it will never deliver again: it is dropped.
    if (res.status === 404 || res.status === 410) return "gone";
    if (res.status >= 200 && res.status < 300) return "sent";
    logEvent("warn", "push: refused", { status: res.status, host: new URL(details.endpoint).host });
    return "failed";
  } catch (err) {
    logEvent("warn", "push: failed", { cause: (err as Error).message });
    return "failed";
  }
}

/** How a send to every device of a member went. */
export interface DeliveryReport {
  sent: number;
  dropped: number;
  failed: number;
}

/**
 * Sends `payload` to every subscription of the member, at once; a subscription the push service
 * answers 404 or 410 is deleted (checked against the entry as read, so a browser that subscribed
 * again meanwhile keeps its new entry).
 */
export async function pushToMember(
  kv: Deno.Kv,
  sender: PushSender,
  memberId: string,
  payload: PushPayload,
): Promise<DeliveryReport> {
  const subscriptions = await readKv(() => listSubscriptions(kv, memberId));
  const results = await Promise.all(subscriptions.map((e) => sendPush(sender, e.value, payload)));
  const report: DeliveryReport = { sent: 0, dropped: 0, failed: 0 };
  for (const [i, result] of results.entries()) {
    if (result === "gone") {
      await commitKv(() => kv.atomic().check(subscriptions[i]).delete(subscriptions[i].key));
      report.dropped++;
    } else report[result === "sent" ? "sent" : "failed"]++;
  }
  return report;
}
