/**
 * Password hashing: PBKDF2-HMAC-SHA256 through Web Crypto, 600 000 iterations in production and a
 * 16-byte random salt (OWASP Password Storage Cheat Sheet, "PBKDF2"; DESIGN §7). The stored string
 * carries its own parameters — `pbkdf2-sha256$<iterations>$<salt b64url>$<hash b64url>` — so the
 * work factor can rise later without invalidating old hashes, and tests can run a cheap one.
 */

import { base64Url, randomBytes, safeEqual } from "../foundation/secrets.ts";

const SALT_BYTES = 16;
const HASH_BYTES = 32;
const SCHEME = "pbkdf2-sha256";

function fromB64url(text: string): Uint8Array {
  const bin = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(password),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    HASH_BYTES * 8,
  );
  return new Uint8Array(bits);
}

/**
 * Hashes a password for storage.
 *
 * @param password the plain password (already length-checked by the caller)
 * @param iterations PBKDF2 iterations (config `passwordIterations`)
 * @example
 * ```ts
 * const stored = await hashPassword("correct horse", 600_000);
 * await verifyPassword("correct horse", stored); // true
 * ```
 */
export async function hashPassword(password: string, iterations: number): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await pbkdf2(password, salt, iterations);
  return `${SCHEME}$${iterations}$${base64Url(salt)}$${base64Url(hash)}`;
}

/**
 * Checks a password against a stored hash, comparing in constant time (`safeEqual`, OWASP ASVS 4.0
 * V2.10.4) so the comparison leaks nothing about how many bytes matched. A malformed stored hash
 * never matches.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterText, saltText, hashText] = stored.split("$");
  const iterations = Number(iterText);
  if (
    scheme !== SCHEME || !Number.isInteger(iterations) || iterations < 1 || !saltText || !hashText
  ) {
    return false;
  }
  const expected = fromB64url(hashText);
  const actual = await pbkdf2(password, fromB64url(saltText), iterations);
  return safeEqual(expected, actual);
}
