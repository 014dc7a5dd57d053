/**
 * A local push service for tests (issue #24), standing in for a browser vendor's (RFC 8030): it
 * hands out subscriptions as a browser's `PushManager.subscribe` would (a P-256 key pair and a
 * 16-byte auth secret of the "user agent", an endpoint on this server), and on every push it checks
 * the VAPID authorization (RFC 8292: `vapid t=<JWT>, k=<key>`, an ES256 JWT whose `aud` is this
 * origin, `exp` within 24 hours, `sub` a mailto: or https: URI, signed by `k`, and `k` the
 * subscription's applicationServerKey) and decrypts the body (RFC 8291 over RFC 8188 `aes128gcm`)
 * with Web Crypto only — none of `web-push`'s code runs on this side. An endpoint can be told to
 * answer 404 or 410 (an expired or unsubscribed subscription).
 */

const enc = new TextEncoder();

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

function unb64url(text: string): Uint8Array<ArrayBuffer> {
  const b64 = text.replaceAll("-", "+").replaceAll("_", "/");
  return Uint8Array.from(atob(b64 + "=".repeat((4 - b64.length % 4) % 4)), (c) => c.charCodeAt(0));
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** HKDF-SHA-256 (RFC 5869): Expand(Extract(salt, ikm), info, bytes). */
async function hkdf(
  salt: Uint8Array<ArrayBuffer>,
  ikm: Uint8Array<ArrayBuffer>,
  info: Uint8Array<ArrayBuffer>,
  bytes: number,
) {
  const key = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt, info },
    key,
    bytes * 8,
  );
  return new Uint8Array(bits);
}

/** One "browser" subscription: what it posts, and its private key to decrypt with. */
export interface TestSubscription {
  /** `PushSubscription.toJSON()`. */
  json: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
  id: string;
  privateKey: CryptoKey;
  publicRaw: Uint8Array<ArrayBuffer>;
  auth: Uint8Array<ArrayBuffer>;
}

/** One message as the push service received and decrypted it. */
export interface ReceivedPush {
  subscriptionId: string;
  /** The decrypted payload, parsed as JSON. */
  payload: unknown;
  /** The VAPID JWT's claims. */
  claims: { aud: string; exp: number; sub: string };
  /** The `k` of the Authorization header (the VAPID public key). */
  vapidKey: string;
  headers: Headers;
}

/** RFC 8291 §3.4 and RFC 8188 §2: decrypts one aes128gcm body for `sub`. */
export async function decryptPush(
  sub: TestSubscription,
  body: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const salt = body.slice(0, 16);
  const idlen = body[20];
  const asPublic = body.slice(21, 21 + idlen);
  const ciphertext = body.slice(21 + idlen);
  const asKey = await crypto.subtle.importKey(
    "raw",
    asPublic,
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const ecdh = new Uint8Array(
    await crypto.subtle.deriveBits({ name: "ECDH", public: asKey }, sub.privateKey, 256),
  );
  const keyInfo = concat(enc.encode("WebPush: info\0"), sub.publicRaw, asPublic);
  const ikm = await hkdf(sub.auth, ecdh, keyInfo, 32);
  const cek = await hkdf(salt, ikm, enc.encode("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, enc.encode("Content-Encoding: nonce\0"), 12);
  const aes = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["decrypt"]);
  const plain = new Uint8Array(
    await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, aes, ciphertext),
  );
  // RFC 8188 §2: the last record ends with the delimiter 0x02, then zero padding
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error("aes128gcm: no last-record delimiter");
  return new TextDecoder().decode(plain.slice(0, end));
}

/** RFC 8292 §2–3: checks `Authorization: vapid t=…, k=…`; returns the claims and key. */
export async function verifyVapid(header: string | null, origin: string, now: number) {
  const m = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(header ?? "");
  if (!m) throw new Error(`Authorization is not "vapid t=…, k=…": ${header}`);
  const [jwt, k] = [m[1], m[2]];
  const [h, p, s] = jwt.split(".");
  const head = JSON.parse(new TextDecoder().decode(unb64url(h)));
  if (head.alg !== "ES256") throw new Error(`JWT alg ${head.alg}, not ES256`);
  const key = await crypto.subtle.importKey(
    "raw",
    unb64url(k),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const ok = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    key,
    unb64url(s),
    enc.encode(`${h}.${p}`),
  );
  if (!ok) throw new Error("VAPID JWT signature does not verify with k");
  const claims = JSON.parse(new TextDecoder().decode(unb64url(p)));
  if (claims.aud !== origin) throw new Error(`JWT aud ${claims.aud}, not ${origin}`);
  if (!(claims.exp > now / 1000 && claims.exp <= now / 1000 + 86_400)) {
    throw new Error("JWT exp not within 24 h");
  }
  if (!/^(mailto:|https:)/.test(claims.sub)) throw new Error(`JWT sub ${claims.sub}`);
  return { claims, vapidKey: k };
}

/** The running push service. */
export interface PushService extends AsyncDisposable {
  origin: string;
  received: ReceivedPush[];
  /** Pushes that failed a check (with why): a test asserts there are none. */
  refused: string[];
  /** A new subscription, as a browser would create with `applicationServerKey`. */
  subscribe(applicationServerKey?: string): Promise<TestSubscription>;
  /** From now on, answers `status` for this subscription (404, 410). */
  answer(id: string, status: number): void;
  /** Resolves once `count` messages were received (or rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<ReceivedPush[]>;
}

/** Starts a push service on a free loopback port. */
export function startPushService(): PushService {
  const subs = new Map<string, { sub: TestSubscription; serverKey?: string; status: number }>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const id = new URL(req.url).pathname.split("/").pop()!;
    const entry = subs.get(id);
    if (!entry) return new Response("no such subscription", { status: 404 });
    if (entry.status !== 201) return new Response(null, { status: entry.status });
    try {
      if (req.headers.get("content-encoding") !== "aes128gcm") throw new Error("not aes128gcm");
      if (!req.headers.get("ttl")) throw new Error("no TTL (RFC 8030 §5.2)");
      const { claims, vapidKey } = await verifyVapid(
        req.headers.get("authorization"),
        origin,
        Date.now(),
      );
      if (entry.serverKey && vapidKey !== entry.serverKey) {
        throw new Error("k is not the subscription's applicationServerKey");
      }
      const text = await decryptPush(entry.sub, new Uint8Array(await req.arrayBuffer()));
      received.push({
        subscriptionId: id,
        payload: JSON.parse(text),
        claims,
        vapidKey,
        headers: req.headers,
      });
      return new Response(null, { status: 201 });
    } catch (err) {
      refused.push((err as Error).message);
      return new Response((err as Error).message, { status: 400 });
    }
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    received,
    refused,
    async subscribe(applicationServerKey) {
      const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
        "deriveBits",
      ]) as CryptoKeyPair;
      const publicRaw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
      const auth = crypto.getRandomValues(new Uint8Array(16));
      const id = crypto.randomUUID();
      const sub: TestSubscription = {
        json: {
          endpoint: `${origin}/push/${id}`,
          expirationTime: null,
          keys: { p256dh: b64url(publicRaw), auth: b64url(auth) },
        },
        id,
        privateKey: pair.privateKey,
        publicRaw,
        auth,
      };
      subs.set(id, { sub, serverKey: applicationServerKey, status: 201 });
      return sub;
    },
    answer(id, status) {
      subs.get(id)!.status = status;
    },
    async waitFor(count, ms = 10_000) {
      const until = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > until) {
          throw new Error(`push service: ${received.length} of ${count} received`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
