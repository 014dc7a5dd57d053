/**
 * The limits of every KV the service supports, at their strictest (issue #19): Deno's own KV
 * (local SQLite and Deno Deploy; deno ext/kv/config.rs) and the self-hosted `denokv` server
 * (denokv proto/limits.rs). Code that batches writes or reads sizes its batches by this table;
 * tests run on a KV that enforces it (tests/_kv_limits.ts), so a batch that only the local KV
 * accepts fails a test instead of a member's request.
 */

import { serialize } from "node:v8";

/** The strictest of Deno's KV and `denokv` v0.12. */
export const KV_LIMITS = Object.freeze({
  /** `denokv` `MAX_CHECKS` (Deno's own KV allows 100). */
  checksPerAtomic: 10,
  /** Mutations and enqueues of one atomic operation. */
  mutationsPerAtomic: 1000,
  /** Keys and values (and enqueued payloads) of one atomic operation. */
  atomicBytes: 819_200,
  /** Keys of one atomic operation (Deno ext/kv `max_total_key_size_bytes`). */
  atomicKeyBytes: 81_920,
  /** Keys (ranges) of one `getMany`. */
  keysPerRead: 10,
  /** An encoded key that is written. */
  writeKeyBytes: 2048,
  /** An encoded key that is read (one more: a list end may carry a 0x00 suffix). */
  readKeyBytes: 2049,
  /** A value (or an enqueued payload). */
  valueBytes: 65_536,
  /** Keys of one `watch`. */
  watchKeys: 10,
  /** Entries of one `list` batch. */
  listBatch: 1000,
});

const encoder = new TextEncoder();

/** Escaped bytes of a string or byte key part (0x00 becomes 0x00 0xff) plus the terminator. */
function escapedLength(bytes: Uint8Array): number {
  let n = bytes.length + 1;
  for (const b of bytes) if (b === 0) n++;
  return n;
}

function bigintLength(n: bigint): number {
  const abs = n < 0n ? -n : n;
  if (abs === 0n) return 1;
  const bytes = Math.ceil(abs.toString(16).length / 2);
  // Up to 8 bytes: a type code that carries the length; beyond: a code, a length byte.
  return bytes <= 8 ? 1 + bytes : 2 + bytes;
}

/** Size of a key in Deno KV's tuple encoding (denokv proto/codec.rs `encode_key`). */
export function keySize(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) {
    if (typeof part === "string") n += 1 + escapedLength(encoder.encode(part));
    else if (part instanceof Uint8Array) n += 1 + escapedLength(part);
    else if (typeof part === "number") n += 9;
    else if (typeof part === "bigint") n += bigintLength(part);
    else n += 1; // boolean
  }
  return n;
}

/**
 * Size of a stored value: raw bytes, 8 for a `Deno.KvU64`, else its V8 serialisation (what Deno
 * stores). Not its JSON length: one character beyond Latin-1 makes V8 store the whole string with
 * two bytes per character, so a note typed with a ’ or an emoji weighs about twice its length.
 */
export function valueSize(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Deno.KvU64) return 8;
  return serialize(value).byteLength;
}
