// The push switch of the reminders page (components/RemindersPage.tsx, issue #24). It needs the
// Push API: a service worker (/sw.js, registered by the app shell) and PushManager.subscribe with
// the service's VAPID key. The subscription goes to POST /app/settings/push as JSON. Without
// JavaScript, or without the Push API, the switch stays hidden and the rest of the page works.

const box = document.querySelector("[data-push]");
const status = document.querySelector("[data-push-status]");
const on = document.querySelector("[data-push-on]");
const off = document.querySelector("[data-push-off]");

function keyBytes(base64url) {
  const b64 = base64url.replaceAll("-", "+").replaceAll("_", "/");
  return Uint8Array.from(atob(b64 + "=".repeat((4 - b64.length % 4) % 4)), (c) => c.charCodeAt(0));
}

async function post(body) {
  const res = await fetch("/app/settings/push", {
    method: "POST",
    headers: { "Content-Type": "application/json", "Accept": "application/json" },
    body: JSON.stringify({ csrf: box.dataset.csrf, ...body }),
  });
  if (!res.ok) throw new Error((await res.json()).error ?? `HTTP ${res.status}`);
  return await res.json();
}

async function registration() {
  return await navigator.serviceWorker.getRegistration("/") ??
    await navigator.serviceWorker.register("/sw.js", { scope: "/" });
}

async function show() {
  const reg = await registration();
  const sub = await reg.pushManager.getSubscription();
  on.hidden = Boolean(sub);
  off.hidden = !sub;
}

if (box && "serviceWorker" in navigator && "PushManager" in globalThis) {
  box.hidden = false;
  show().catch(() => {});
  on.addEventListener("click", async () => {
    try {
      if (await Notification.requestPermission() !== "granted") {
        status.textContent = "Notifications are blocked for this site in the browser's settings.";
        return;
      }
      const reg = await registration();
      const sub = await reg.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(box.dataset.vapidKey),
      });
      await post({ subscription: sub.toJSON() });
      status.textContent = "Notifications are on for this device.";
      await show();
    } catch (err) {
      status.textContent = `Could not turn notifications on: ${err.message}`;
    }
  });
  off.addEventListener("click", async () => {
    try {
      const sub = await (await registration()).pushManager.getSubscription();
      if (sub) {
        await post({ endpoint: sub.endpoint }).catch(() => {});
        await sub.unsubscribe();
      }
      status.textContent = "Notifications are off for this device.";
      await show();
    } catch (err) {
      status.textContent = `Could not turn notifications off: ${err.message}`;
    }
  });
}
