/*
 * The service worker of Routine Tracker (issue #24), served at /sw.js so its scope is the whole
 * site (Service Workers §4.1: the default scope is the script's folder, "/"). It keeps the app
 * shell, Today and every /app page already seen available offline, queues the changes made
 * offline and sends them when the connection returns, and shows reminders (Web Push).
 *
 * - Static files (/static/…): answered from the cache at once and refreshed behind it
 *   (stale-while-revalidate), so a deploy's new stylesheet arrives on the next load.
 * - /app pages (GET): the network first; the cache when the network fails. Only a 200 that was
 *   not redirected is kept (never the sign-in page a lapsed session is sent to).
 * - A POST whose form body carries `idempotency_key` (static/offline.js adds it to forms marked
 *   `data-offline`; a script may send the same fields with fetch) is replayable: the key travels
 *   as the `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header), which the server
 *   applies once, so a change whose answer was lost can be sent again without doubling. When the
 *   network fails the change is kept in IndexedDB and sent, oldest first, when it is back.
 * - Signing out deletes the kept pages and the waiting changes: they are one member's and the
 *   device may be shared. Signing in or up deletes the kept pages (another member may sign in).
 * - The /app pages are sent `Cache-Control: no-store`, so the browser's HTTP cache keeps none; this
 *   worker's copy is the one exception, made for offline use, and Settings is never copied.
 *
 * Its own response carries a CSP (lib/http/kernel/security_headers.ts `SERVICE_WORKER_CSP`): it fetches
 * only its own origin and runs no other script.
 */

const VERSION = "1";
const STATIC_CACHE = `rt-static-${VERSION}`;
const PAGE_CACHE = `rt-pages-${VERSION}`;
const DB_NAME = "rt-offline";
const QUEUE = "queue";
/** What the page shell needs when nothing can be fetched. */
const SHELL = [
  "/static/styles.css",
  "/static/offline.js",
  "/static/manifest.webmanifest",
  "/static/icons/icon.svg",
];
/** Form fields that steer the queue and never reach the server. */
const OWN_FIELDS = ["idempotency_key", "offline_label", "offline_member"];
/** The CSP of the pages this worker writes itself (the offline fallback). */
const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; " +
  "base-uri 'none'; form-action 'self'";

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(STATIC_CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name !== STATIC_CACHE && name !== PAGE_CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "GET" && url.pathname.startsWith("/static/")) {
    event.respondWith(fromCacheThenRefresh(event, request));
  } else if (request.method === "GET" && isAppPage(url)) {
    event.respondWith(networkThenCache(request));
  } else if (request.method === "POST" && url.pathname === "/signout") {
    event.respondWith(signOut(request));
  } else if (request.method === "POST" && /^\/sign(in|up)$/.test(url.pathname)) {
    event.respondWith(signIn(request));
  } else if (request.method === "POST" && isForm(request)) {
    event.respondWith(sendOrQueue(request));
  }
});

/**
 * `/app` and the pages below it, but Settings: it holds the account's own data (tokens' names,
 * connected apps) and is of no use offline, so no copy of it is kept.
 */
function isAppPage(url) {
  if (url.pathname === "/app/settings" || url.pathname.startsWith("/app/settings/")) return false;
  return url.pathname === "/app" || url.pathname.startsWith("/app/");
}

function isForm(request) {
  const type = request.headers.get("content-type") ?? "";
  return /^application\/x-www-form-urlencoded\b/i.test(type);
}

async function fromCacheThenRefresh(event, request) {
  const cache = await caches.open(STATIC_CACHE);
  const cached = await cache.match(request);
  const fresh = fetch(request).then(async (response) => {
    if (response.ok) await cache.put(request, response.clone());
    return response;
  });
  if (!cached) return fresh;
  event.waitUntil(fresh.catch(() => {}));
  return cached;
}

async function networkThenCache(request) {
  const cache = await caches.open(PAGE_CACHE);
  try {
    const response = await fetch(request);
    if (response.status === 200 && !response.redirected) {
      await cache.put(request, response.clone());
    }
    return response;
  } catch (err) {
    const cached = await cache.match(request);
    if (cached) return cached;
    if (request.mode !== "navigate") throw err;
    return offlinePage();
  }
}

/** The page of an /app address never seen before, while offline. */
function offlinePage() {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Offline · Routine Tracker</title><link rel="stylesheet" href="/static/styles.css"></head>
<body><main id="main" class="page"><h1>You are offline</h1>
<p>This page was not opened on this device before, so it cannot be shown without a connection.
Today and the pages you opened before work offline.</p><p><a href="/app">Open Today</a></p>
</main></body></html>`;
  return new Response(html, {
    status: 503,
    headers: { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": PAGE_CSP },
  });
}

/** Signing out: the request goes on as sent; this device's copies of the member's pages go. */
async function signOut(request) {
  const response = await fetch(request);
  await caches.delete(PAGE_CACHE);
  await withStore("readwrite", (store) => store.clear());
  await broadcast();
  return response;
}

/**
 * Signing in or up starts a new session, perhaps another member's: the kept pages of the last one
 * go (its waiting changes stay, each sent only from its own member's pages).
 */
async function signIn(request) {
  const response = await fetch(request);
  await caches.delete(PAGE_CACHE);
  return response;
}

// ---------------------------------------------------------------------------------------------
// The queue of changes (IndexedDB: the Cache API keeps responses, not requests)

/** One waiting change. */
function itemOf(request, fields) {
  return {
    key: fields.get("idempotency_key"),
    url: request.url,
    // where the member was: the answer of a navigation sends them back there
    back: sameOrigin(request.referrer) ? request.referrer : request.url,
    body: withoutOwnFields(fields).toString(),
    label: (fields.get("offline_label") ?? "").slice(0, 200) || "A change",
    member: fields.get("offline_member") ?? "",
    createdAt: Date.now(),
  };
}

function sameOrigin(address) {
  try {
    return new URL(address).origin === self.location.origin;
  } catch {
    return false;
  }
}

function withoutOwnFields(fields) {
  const out = new URLSearchParams(fields);
  for (const name of OWN_FIELDS) out.delete(name);
  return out;
}

function openDb() {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(DB_NAME, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(QUEUE, { keyPath: "key" });
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

/** Runs `use(store)` in one transaction; resolves with its request's result once committed. */
async function withStore(mode, use) {
  const db = await openDb();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(QUEUE, mode);
      const req = use(tx.objectStore(QUEUE));
      tx.oncomplete = () => resolve(req?.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

const allItems = async () =>
  ((await withStore("readonly", (s) => s.getAll())) ?? []).sort((a, b) =>
    a.createdAt - b.createdAt
  );

/** The request that sends `item` (its key in the header), following the server's redirect. */
function replayRequest(item, redirect) {
  return new Request(item.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "Idempotency-Key": `"${item.key}"`,
    },
    body: item.body,
    credentials: "same-origin",
    redirect,
  });
}

/**
 * A replayable POST: sent with its key; if the network fails it waits in the queue, and the
 * member is sent back to the page they were on (a navigation) or told `202 queued` (a script).
 */
async function sendOrQueue(request) {
  const fields = new URLSearchParams(await request.clone().text());
  const key = fields.get("idempotency_key");
  if (!key || !/^[\x21-\x7e]{1,128}$/.test(key) || key.includes('"')) return fetch(request);
  const item = itemOf(request, fields);
  const navigate = request.mode === "navigate";
  try {
    const response = await fetch(replayRequest(item, navigate ? "manual" : "follow"));
    flush(item.member); // the network is back: send what waited, after this one
    return response;
  } catch {
    await withStore("readwrite", (store) => store.put(item));
    await broadcast();
    if (navigate) return Response.redirect(item.back, 303);
    return Response.json({ queued: true, waiting: (await allItems()).length }, { status: 202 });
  }
}

let flushing = null;
/** Refused on replay (the server answered 4xx): kept for the page to say so, until it asks. */
const refused = [];
/** True when a replay met the sign-in page: the session lapsed; the queue waits for a sign-in. */
let signInNeeded = false;

/** Sends the member's waiting changes, oldest first; one flush at a time. */
function flush(member) {
  flushing ??= sendWaiting(member).finally(() => {
    flushing = null;
  });
  return flushing;
}

async function sendWaiting(member) {
  for (const item of await allItems()) {
    // another member's change waits for them (a lapsed session, then someone else signed in)
    if (item.member !== member) continue;
    let response;
    try {
      response = await fetch(replayRequest(item, "follow"));
    } catch {
      break; // still offline
    }
    if (response.redirected && new URL(response.url).pathname === "/signin") {
      signInNeeded = true;
      break;
    }
    if (response.status === 429 || response.status >= 500) break;
    signInNeeded = false;
    if (!response.ok) refused.push(item.label);
    await withStore("readwrite", (store) => store.delete(item.key));
  }
  await broadcast();
}

/** Tells every open page what is waiting (static/offline.js shows it). */
async function broadcast() {
  const items = await allItems();
  const clients = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  for (const client of clients) {
    client.postMessage({
      type: "queue",
      // with its address and fields: the page shows the waiting values in its form
      waiting: items.map(({ key, url, body, label, member }) => ({
        key,
        url,
        body,
        label,
        member,
      })),
      refused: [...refused],
      signInNeeded,
    });
  }
}

self.addEventListener("message", (event) => {
  const data = event.data ?? {};
  if (data.type === "flush") event.waitUntil(flush(String(data.member ?? "")));
  else if (data.type === "refused-seen") refused.length = 0;
  else if (data.type === "status") event.waitUntil(broadcast());
});

// ---------------------------------------------------------------------------------------------
// Reminders (Web Push: the server sends JSON {title, body, url}, RFC 8030 / RFC 8291)

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : "" };
  }
  const title = typeof message.title === "string" && message.title
    ? message.title
    : "Routine Tracker";
  event.waitUntil(self.registration.showNotification(title, {
    body: typeof message.body === "string" ? message.body : "",
    icon: "/static/icons/icon-192.png",
    data: { url: safeUrl(message.url) },
  }));
});

/** A same-origin address to open; anything else (another site, `javascript:`) opens Today. */
function safeUrl(address) {
  try {
    const url = new URL(String(address ?? "/app"), self.location.origin);
    return url.origin === self.location.origin
      ? url.href
      : new URL("/app", self.location.origin).href;
  } catch {
    return new URL("/app", self.location.origin).href;
  }
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openTarget(event.notification.data?.url));
});

/**
 * Opens a notification's address: in an open window of this site (navigated there if it shows
 * another page, then focused — a notification click allows both), else in a new window.
 */
async function openTarget(address) {
  const target = safeUrl(address);
  const open = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const same = open.find((c) => c.url === target) ?? open.find((c) => sameOrigin(c.url));
  if (!same) return await self.clients.openWindow(target);
  const shown = same.url === target ? same : (await same.navigate(target)) ?? same;
  return await shown.focus();
}
