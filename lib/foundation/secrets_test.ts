import assert from "node:assert/strict";
import {
  base64Url,
  hashSecret,
  isTokenOf,
  newId,
  newSecret,
  prefixOf,
  s256,
  safeEqual,
  TOKEN_KINDS,
} from "./secrets.ts";
import { keys } from "./kv_keys.ts";
import { findSession } from "../accounts/accounts.ts";
import { ApiTokenResolver } from "../accounts/api_tokens.ts";
import { verifyPassword } from "../accounts/passwords.ts";
import { openLimitedKv } from "../../tests/_kv_limits.ts";

// Fixed vectors minted by the code before issue #23 (lib/accounts/secrets.ts `secretHash`,
// lib/oauth/secrets.ts `hashSecret`, lib/accounts/passwords.ts at main 2548bf9); both old hashes
// gave the same hex, also `printf %s <token> | sha256sum`.
const OLD_SESSION = "rt_ses_Q2FmZWJhYmVDYWZlYmFiZUNhZmViYWJlQ2FmZWJhYmU";
const OLD_SESSION_HASH = "10ceaced973acb318e8545949498156020d69671ea9d3e46a57e131c907ea966";
const OLD_API_TOKEN = "rt_ro_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
const OLD_API_TOKEN_HASH = "a133e4a61c0e3d2049dc7793470f07c69c48fcba0a9f73ae56bab2aea8098d4c";
const OLD_PASSWORD_HASH =
  "pbkdf2-sha256$1000$DxJuHH7aDWkIe4Bv_Dh8hA$Jm-_0WV5tYJHkYLrzRVAahl8uANkU1AE_DADG2AAFDw";

Deno.test("hashSecret() gives the stored hashes of tokens minted before issue #23", () => {
  assert.equal(hashSecret(OLD_SESSION), OLD_SESSION_HASH);
  assert.equal(hashSecret(OLD_API_TOKEN), OLD_API_TOKEN_HASH);
  // FIPS 180-2 Appendix B.1: SHA-256("abc").
  assert.equal(
    hashSecret("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("s256() is the PKCE transform of RFC 7636 Appendix B", () => {
  assert.equal(
    s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
    "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  );
});

Deno.test("base64Url() is RFC 4648 §5 without padding", () => {
  assert.equal(
    base64Url(Uint8Array.from({ length: 32 }, (_, i) => i)),
    "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
  );
  assert.equal(base64Url(new Uint8Array([0xfb, 0xff, 0xbf, 0xfb])), "-_-_-w");
});

Deno.test("newSecret() is the kind's prefix and 256 random bits as 43 base64url characters", () => {
  for (const kind of ["session", "apiToken", "accessToken", "formToken"] as const) {
    const secret = newSecret(kind);
    assert.match(secret, new RegExp(`^${prefixOf(kind)}[A-Za-z0-9_-]{43}$`));
    assert.ok(isTokenOf(kind, secret));
    assert.notEqual(newSecret(kind), secret);
  }
  assert.equal(newSecret("apiToken").length, OLD_API_TOKEN.length);
  assert.equal(newSecret("session").length, OLD_SESSION.length);
});

Deno.test("newId() is the kind's prefix and 22 base64url characters (128 bits)", () => {
  assert.match(newId("clientId"), /^rtc_[A-Za-z0-9_-]{22}$/);
  assert.match(newId("grantId"), /^grt_[A-Za-z0-9_-]{22}$/);
});

Deno.test("secrets: TOKEN_KINDS gives each kind a prefix no other prefix starts with", () => {
  const prefixes = Object.values(TOKEN_KINDS).map((k) => k.prefix);
  for (const a of prefixes) {
    assert.deepEqual(prefixes.filter((b) => b.startsWith(a)), [a], `${a} is ambiguous`);
  }
  assert.ok(!isTokenOf("session", OLD_API_TOKEN));
  assert.ok(!isTokenOf("apiToken", OLD_SESSION));
});

Deno.test("safeEqual() matches equal strings or bytes and nothing else", () => {
  assert.ok(safeEqual("rt_ct_abc", "rt_ct_abc"));
  assert.ok(!safeEqual("rt_ct_abc", "rt_ct_abd"));
  assert.ok(!safeEqual("rt_ct_abc", "rt_ct_ab"));
  assert.ok(!safeEqual("", "x"));
  assert.ok(safeEqual("", ""));
  assert.ok(safeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3])));
  assert.ok(!safeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4])));
  // Two different lone surrogates would both encode as U+FFFD: refused rather than matched.
  assert.ok(!safeEqual("\uD800", "\uD801"));
  assert.ok(!safeEqual("\uD800", "\uD800"));
});

Deno.test("findSession() still finds a session stored before issue #23", async () => {
  const kv = await openLimitedKv();
  try {
    const now = Date.UTC(2026, 10, 26);
    await kv.set(keys.session(OLD_SESSION_HASH), {
      memberId: "m-old",
      createdAt: now,
      expiresAt: now + 3600_000,
    });
    const found = await findSession(kv, () => now, OLD_SESSION);
    assert.equal(found?.memberId, "m-old");
    assert.equal(await findSession(kv, () => now, OLD_SESSION.slice(0, -1) + "V"), null);
  } finally {
    kv.close();
  }
});

Deno.test("ApiTokenResolver.resolve() still finds an API token stored before issue #23", async () => {
  const kv = await openLimitedKv();
  const resolver = new ApiTokenResolver(kv, () => Date.UTC(2026, 10, 26));
  try {
    await kv.set(keys.apiToken(OLD_API_TOKEN_HASH), {
      id: "t-old",
      memberId: "m-old",
      name: "old script",
      scopes: ["read"],
      createdAt: "2026-11-01T00:00:00.000Z",
      prefixHint: OLD_API_TOKEN.slice(0, 10),
      hash: OLD_API_TOKEN_HASH,
    });
    const principal = await resolver.resolve(OLD_API_TOKEN);
    assert.equal(principal?.memberId, "m-old");
    assert.deepEqual(principal?.scopes, ["read"]);
  } finally {
    await resolver.close();
    kv.close();
  }
});

Deno.test("verifyPassword() still accepts a password hash stored before issue #23", async () => {
  assert.equal(await verifyPassword("correct horse battery", OLD_PASSWORD_HASH), true);
  assert.equal(await verifyPassword("correct horse batterz", OLD_PASSWORD_HASH), false);
});
