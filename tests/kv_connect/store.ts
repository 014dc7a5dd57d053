/**
 * The store behind the KV Connect test server: KV Connect's packed keys, values and
 * versionstamps mapped onto a local SQLite `Deno.Kv`.
 *
 * - A packed key (the order-preserving tuple bytes the client sends) is stored as the one-part key
 *   `[bytes]`. The tuple encoding of a byte string keeps byte order, so a read range [start, end)
 *   becomes `list({ start: [start], end: [end] })` without decoding any key. Cost: the stored key
 *   is 2 bytes longer (plus 1 per 0x00 byte), so a key within that of the 2,048-byte limit is
 *   refused by the local store (answered 400 with its message).
 * - A `VE_LE64` value is stored as `Deno.KvU64`, so `sum`/`min`/`max` run in the local store.
 *   A `VE_V8` value is stored as its raw bytes: V8 ValueSerializer output always starts with the
 *   version tag 0xFF, which tells it apart when read back. A `VE_BYTES` value is stored as
 *   itself unless it starts with 0xFF, in which case it is wrapped as `{ b: bytes }`.
 * - Versionstamps are the local store's: its 20-hex-digit strings travel as their 10 raw bytes.
 */
import {
  type AtomicWrite,
  type KvEntry,
  type KvValue,
  M_DELETE,
  M_MAX,
  M_MIN,
  M_SET,
  M_SUM,
  type Mutation,
  type ReadRange,
  VE_BYTES,
  VE_LE64,
  VE_V8,
} from "./protocol.ts";

const V8_VERSION_TAG = 0xff;

/** A request the server refuses with HTTP 400 and this text (as denokv does). */
export class BadRequest extends Error {}

/** Hex of a versionstamp's 10 bytes → the bytes. */
export function versionstampBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!.map((h) => parseInt(h, 16)));
}

function versionstampHex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function u64Bytes(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n, true);
  return out;
}

function u64Of(data: Uint8Array): Deno.KvU64 {
  if (data.length !== 8) throw new BadRequest("A LE64 value must be 8 bytes.");
  return new Deno.KvU64(new DataView(data.buffer, data.byteOffset, 8).getBigUint64(0, true));
}

/** The value to keep in the local store for a KV Connect value. */
function storedValue(value: KvValue): unknown {
  if (value.encoding === VE_LE64) return u64Of(value.data);
  if (value.encoding === VE_V8) return value.data;
  if (value.encoding === VE_BYTES) {
    return value.data[0] === V8_VERSION_TAG ? { b: value.data } : value.data;
  }
  throw new BadRequest(`The value encoding ${value.encoding} is unknown.`);
}

/** The KV Connect value of a stored one (the inverse of `storedValue`). */
function wireValue(stored: unknown): KvValue {
  if (stored instanceof Deno.KvU64) return { data: u64Bytes(stored.value), encoding: VE_LE64 };
  if (stored instanceof Uint8Array) {
    return { data: stored, encoding: stored[0] === V8_VERSION_TAG ? VE_V8 : VE_BYTES };
  }
  return { data: (stored as { b: Uint8Array }).b, encoding: VE_BYTES };
}

/** A local entry as a KV Connect `KvEntry`. */
export function wireEntry(entry: Deno.KvEntry<unknown>): KvEntry {
  const { data, encoding } = wireValue(entry.value);
  const key = entry.key[0] as Uint8Array;
  return { key, value: data, encoding, versionstamp: versionstampBytes(entry.versionstamp) };
}

/** The local store's refusal (a non-U64 operand, a key grown past its limit by the wrapping) as
 * a 400 with its text, as denokv answers its backend's type errors. */
function refusal(e: unknown): BadRequest {
  return new BadRequest(e instanceof Error ? e.message : String(e));
}

/** Reads each range (already checked against the limits) in one consistent pass each. */
export async function readRanges(kv: Deno.Kv, ranges: ReadRange[]): Promise<KvEntry[][]> {
  return await Promise.all(ranges.map(readRange)).catch((e) => {
    throw refusal(e);
  });

  async function readRange(range: ReadRange): Promise<KvEntry[]> {
    const out: KvEntry[] = [];
    if (compareBytes(range.start, range.end) >= 0) return out;
    const iter = kv.list({ start: [range.start], end: [range.end] }, {
      limit: range.limit,
      reverse: range.reverse,
      batchSize: Math.min(range.limit, 1000),
    });
    for await (const entry of iter) out.push(wireEntry(entry));
    return out;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function addMutation(op: Deno.AtomicOperation, m: Mutation): void {
  const key = [m.key];
  if (m.type === M_DELETE) {
    op.delete(key);
    return;
  }
  const value = storedValue(m.value!);
  if (m.type === M_SET) {
    // expire_at_ms is absolute (ms since the epoch); the local API takes a duration.
    const expireIn = m.expireAtMs > 0n ? Math.max(1, Number(m.expireAtMs) - Date.now()) : undefined;
    op.set(key, value, expireIn === undefined ? undefined : { expireIn });
    return;
  }
  if (!(value instanceof Deno.KvU64)) {
    throw new BadRequest("Failed to perform a sum/min/max mutation with a non-U64 operand.");
  }
  // denokv ignores an expiry on sum/min/max (remote-kv.md: expiration -1 after sum + expireIn).
  if (m.type === M_SUM) op.sum(key, value.value);
  else if (m.type === M_MIN) op.min(key, value.value);
  else if (m.type === M_MAX) op.max(key, value.value);
}

/** Commits an atomic write (already checked); `null` when a check failed, else the versionstamp. */
export async function commitWrite(kv: Deno.Kv, write: AtomicWrite): Promise<Uint8Array | null> {
  const op = kv.atomic();
  for (const c of write.checks) {
    op.check({
      key: [c.key],
      versionstamp: c.versionstamp.length ? versionstampHex(c.versionstamp) : null,
    });
  }
  for (const m of write.mutations) addMutation(op, m);
  try {
    const res = await op.commit();
    return res.ok ? versionstampBytes(res.versionstamp) : null;
  } catch (e) {
    throw refusal(e);
  }
}
