/**
 * Every secret of the service is minted, hashed and compared here, and every credential's prefix
 * is declared here (issue #23: one security boundary). Nothing else calls
 * `crypto.getRandomValues`, writes a constant-time comparison or spells a token prefix;
 * tests/secrets_boundary_test.ts scans the source for it.
 *
 * Formats are frozen: a secret is its prefix + 32 random bytes as base64url without padding, and
 * it reaches KV only as the lowercase hex SHA-256 of the whole string (DESIGN §7: everything
 * secret is stored hashed). Tokens and hashes written before this module still verify
 * (lib/foundation/secrets_test.ts holds fixed vectors).
 */

import { createHash, timingSafeEqual } from "node:crypto";

/** One kind of credential (or public identifier) the service issues. */
export interface TokenKind {
  /** What the string starts with, so a bearer is routed to its verifier without a lookup. */
  readonly prefix: string;
  /** What the credential is. */
  readonly what: string;
  /** The function that verifies it (or, for an identifier, that looks it up). */
  readonly verifiedBy: string;
  /** `true` for a secret (`newSecret`, 256 bits, stored hashed); `false` for an id (`newId`). */
  readonly secret: boolean;
}

/**
 * The token-prefix table: each credential kind's prefix, what it is, and who verifies it. The
 * prefixes are distinct and none is a prefix of another, so one string names one kind.
 */
export const TOKEN_KINDS = {
  session: {
    prefix: "rt_ses_",
    what: "A signed-in session: the `rt_session` cookie, or a bearer from `POST /api/auth`.",
    verifiedBy: "lib/accounts/accounts.ts findSession, lib/accounts/session_resolver.ts",
    secret: true,
  },
  apiToken: {
    prefix: "rt_ro_",
    what: 'A member\'s read-only API token (spec "API token"), minted by a session.',
    verifiedBy: "lib/accounts/api_tokens.ts ApiTokenResolver",
    secret: true,
  },
  accessToken: {
    prefix: "rt_at_",
    what: "An OAuth access token (RFC 6749 §1.4), bound to one resource (RFC 8707).",
    verifiedBy: "lib/oauth/grants.ts AccessTokenVerifier",
    secret: true,
  },
  refreshToken: {
    prefix: "rt_rt_",
    what: "An OAuth refresh token (RFC 6749 §1.5), rotated on use (OAuth 2.1 §4.3.1).",
    verifiedBy: "lib/oauth/grants.ts refreshAccessToken",
    secret: true,
  },
  authorizationCode: {
    prefix: "rt_ac_",
    what: "A single-use OAuth authorization code (RFC 6749 §4.1.2).",
    verifiedBy: "lib/oauth/grants.ts exchangeAuthorizationCode",
    secret: true,
  },
  consentTicket: {
    prefix: "rt_ct_",
    what: "The CSRF token of the OAuth consent form, bound to the session that saw it.",
    verifiedBy: "lib/oauth/grants.ts consumeConsentTicket",
    secret: true,
  },
  formToken: {
    prefix: "rt_form_",
    what: 'The pre-session cookie of signed-out forms (OWASP "Login CSRF").',
    verifiedBy: "lib/http/web/browser_session.ts verifyFormPost (through csrfTokenFor)",
    secret: true,
  },
  emailLink: {
    prefix: "rt_ml_",
    what: "A single-use e-mail link: address verification (24 h) or password reset (30 min).",
    verifiedBy: "lib/accounts/email.ts consumeEmailLink",
    secret: true,
  },
  resetPassword: {
    prefix: "reset-",
    what: "A temporary password an operator sets (`deno task admin reset-password`), shown once.",
    verifiedBy: "lib/accounts/passwords.ts verifyPassword (stored as PBKDF2 like any password)",
    secret: true,
  },
  decoyPassword: {
    prefix: "decoy_",
    what: "A password nobody has, hashed so an unknown username costs a sign-in the same time.",
    verifiedBy: "nobody: it exists only as a hash that never matches",
    secret: true,
  },
  clientId: {
    prefix: "rtc_",
    what: "A dynamically registered OAuth client's id (RFC 7591 §3.2.1); public, not a secret.",
    verifiedBy: "lib/oauth/clients.ts findClient",
    secret: false,
  },
  grantId: {
    prefix: "grt_",
    what: "An OAuth grant's id (one member × client × resource); public, not a secret.",
    verifiedBy: "lib/oauth/grants.ts revokeGrant",
    secret: false,
  },
} as const satisfies Record<string, TokenKind>;

type Kinds = typeof TOKEN_KINDS;
/** A kind of credential that is a secret. */
export type SecretKind = { [K in keyof Kinds]: Kinds[K]["secret"] extends true ? K : never }[
  keyof Kinds
];
/** A kind of public identifier. */
export type IdKind = Exclude<keyof Kinds, SecretKind>;

/** The prefix of a kind (`prefixOf("apiToken")` is the API-token prefix). */
export function prefixOf(kind: keyof Kinds): string {
  return TOKEN_KINDS[kind].prefix;
}

/** Whether `token` carries the prefix of `kind`: the cheap routing check before any lookup. */
export function isTokenOf(kind: keyof Kinds, token: string): boolean {
  return token.startsWith(TOKEN_KINDS[kind].prefix);
}

/**
 * `length` bytes from the platform CSPRNG: Web Crypto `getRandomValues`, which draws on the OS
 * generator (RFC 4086 §7.1.2), never `Math.random`.
 */
export function randomBytes(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}

/** base64url without padding (RFC 4648 §5): only RFC 6750 §2.1 `b64token` characters. */
export function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * A fresh secret of `kind`: its prefix + 32 random bytes, base64url (43 characters). 256 bits make
 * guessing hopeless: RFC 6749 §10.10 asks that the probability of guessing a token be ≤ 2^-128,
 * and RFC 6819 §5.1.4.2.2 that tokens be unguessable.
 */
export function newSecret(kind: SecretKind): string {
  return TOKEN_KINDS[kind].prefix + base64Url(randomBytes(32));
}

/** A public identifier of `kind`: its prefix + 16 random bytes, base64url (unique, not secret). */
export function newId(kind: IdKind): string {
  return TOKEN_KINDS[kind].prefix + base64Url(randomBytes(16));
}

/**
 * SHA-256 of `secret` as lowercase hex: the only form in which a secret reaches KV, and the key
 * part it is stored under (RFC 6819 §5.1.4.1.3: store hashes of tokens, not tokens). A plain,
 * unsalted hash suffices because the secret has 256 bits of entropy (no dictionary to attack).
 * Synchronous `node:crypto` (~2 µs) rather than `crypto.subtle.digest` (31–132 µs of waiting): it
 * runs on every bearer request (reference/perf-anchors.md).
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** base64url(SHA-256(ascii(verifier))): the PKCE S256 transform (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

const digestOf = (value: string | Uint8Array) => createHash("sha256").update(value).digest();

/**
 * Whether `a` and `b` are equal, in time that depends on neither their content nor their length
 * (OWASP ASVS 4.0 V2.10.4 / V3.5.3, CWE-208): both sides are hashed to 32 bytes with SHA-256 and
 * compared with `timingSafeEqual`, so an attacker learns nothing from how long a mismatch takes.
 * A string that is not well-formed UTF-16 never matches (it would encode lossily).
 */
export function safeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (typeof a === "string" && !a.isWellFormed()) return false;
  if (typeof b === "string" && !b.isWellFormed()) return false;
  return timingSafeEqual(digestOf(a), digestOf(b));
}
