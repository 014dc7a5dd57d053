/**
 * The browser side of this device's push switch (issue #24, as an island since #25): the Push API
 * (a service worker, /sw.js, and `PushManager.subscribe` with the service's VAPID key, RFC 8292)
 * and the page's JSON calls. Run only by the hydrated Reminders island; no lib/ import, so the
 * bundle stays small. Every call is same-origin with the page's CSRF field, as every form.
 */

/** Whether this browser has the Push API (without it the switch stays hidden). */
export function pushSupported(): boolean {
  return "serviceWorker" in navigator && "PushManager" in globalThis;
}

/** A VAPID public key (base64url, RFC 8292 §3.2) as the bytes `subscribe` wants. */
function keyBytes(base64url: string): Uint8Array {
  const b64 = base64url.replaceAll("-", "+").replaceAll("_", "/");
  const padded = b64 + "=".repeat((4 - b64.length % 4) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

/** POSTs JSON to a page address; its JSON answer, or an Error with the service's message. */
export async function postJson(url: string, body: Record<string, unknown>): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Accept": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json.error ?? `HTTP ${res.status}`);
  return json;
}

async function registration(): Promise<ServiceWorkerRegistration> {
  return await navigator.serviceWorker.getRegistration("/") ??
    await navigator.serviceWorker.register("/sw.js", { scope: "/" });
}

/** Whether this device is subscribed now. */
export async function isSubscribed(): Promise<boolean> {
  return Boolean(await (await registration()).pushManager.getSubscription());
}

/** Subscribes this device and registers it; the member's device count after. */
export async function subscribe(vapidKey: string, csrf: string): Promise<number> {
  if (await Notification.requestPermission() !== "granted") {
    throw new Error("Notifications are blocked for this site in the browser's settings.");
  }
  const sub = await (await registration()).pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: keyBytes(vapidKey) as BufferSource,
  });
  const out = await postJson("/app/settings/push", { csrf, subscription: sub.toJSON() });
  return (out as { devices: number }).devices;
}

/** Unregisters and unsubscribes this device; whether it had a subscription. */
export async function unsubscribe(csrf: string): Promise<boolean> {
  const sub = await (await registration()).pushManager.getSubscription();
  if (!sub) return false;
  await postJson("/app/settings/push", { csrf, endpoint: sub.endpoint }).catch(() => {});
  await sub.unsubscribe();
  return true;
}
