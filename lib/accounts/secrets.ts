/** Random bearer secrets and their storage hashes (DESIGN §7: everything secret is stored hashed). */

import { createHash } from "node:crypto";

/** `prefix` + 32 random bytes as base64url (256 bits, RFC 6750 §2.1 b64token characters only). */
export function newSecret(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const text = btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
  return prefix + text;
}

/**
 * SHA-256 hex of a secret, the KV key part under which it is stored. Synchronous `node:crypto`
 * (~2 µs) rather than `crypto.subtle.digest` (31–132 µs of waiting): it runs on every bearer request
 * (reference/perf-anchors.md). A plain hash suffices because the secret has 256 bits of entropy.
 */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
