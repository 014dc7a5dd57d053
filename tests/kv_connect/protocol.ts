/**
 * The Data Path messages of KV Connect (denoland/denokv `proto/schema/datapath.proto`, package
 * `com.deno.kv.datapath`), written by hand on the wire reader/writer of `@bufbuild/protobuf`.
 * Only the fields a server reads or writes are here; unknown fields are skipped, as proto3 asks.
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** `ReadRange`: keys in [start, end), at most `limit` of them, optionally from the end. */
export interface ReadRange {
  start: Uint8Array;
  end: Uint8Array;
  limit: number;
  reverse: boolean;
}

/** `ValueEncoding`: V8 ValueSerializer bytes, a little-endian u64, or raw bytes. */
export const VE_V8 = 1, VE_LE64 = 2, VE_BYTES = 3;
/** `MutationType`. Note the spec's order: 4 is MAX and 5 is MIN. */
export const M_SET = 1, M_DELETE = 2, M_SUM = 3, M_MAX = 4, M_MIN = 5;
/** `AtomicWriteStatus` and `SnapshotReadStatus` values a server sends. */
export const AW_SUCCESS = 1, AW_CHECK_FAILURE = 2, SR_SUCCESS = 1;

/** `KvValue`. */
export interface KvValue {
  data: Uint8Array;
  encoding: number;
}

/** `Check`: an empty versionstamp means "the key must not exist". */
export interface Check {
  key: Uint8Array;
  versionstamp: Uint8Array;
}

/** `Mutation`; `expireAtMs` 0 means no expiry. */
export interface Mutation {
  key: Uint8Array;
  value?: KvValue;
  type: number;
  expireAtMs: bigint;
}

/** `Enqueue`, kept only so its size counts toward the atomic's limit and it can be refused. */
export interface Enqueue {
  payload: Uint8Array;
  keysIfUndelivered: Uint8Array[];
  backoffSchedule: number[];
}

/** `AtomicWrite`. */
export interface AtomicWrite {
  checks: Check[];
  mutations: Mutation[];
  enqueues: Enqueue[];
}

/** `KvEntry`; `versionstamp` is the 10 raw bytes. */
export interface KvEntry {
  key: Uint8Array;
  value: Uint8Array;
  encoding: number;
  versionstamp: Uint8Array;
}

/** `WatchKeyOutput`. */
export interface WatchKeyOutput {
  changed: boolean;
  entry?: KvEntry;
}

type FieldReader = (field: number, wire: WireType, r: BinaryReader) => boolean;

/** Reads every field of one message, handing each to `read`, skipping those it does not take. */
function readMessage(bytes: Uint8Array, read: FieldReader): void {
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (!read(field, wire, r)) r.skip(wire);
  }
}

/** Reads a packed or unpacked repeated uint32 field (proto3 packs by default). */
function readUint32s(wire: WireType, r: BinaryReader, into: number[]): void {
  if (wire !== WireType.LengthDelimited) {
    into.push(r.uint32());
    return;
  }
  const end = r.uint32() + r.pos;
  while (r.pos < end) into.push(r.uint32());
}

/** Decodes `SnapshotRead`. */
export function decodeSnapshotRead(bytes: Uint8Array): ReadRange[] {
  const ranges: ReadRange[] = [];
  readMessage(bytes, (field, _wire, r) => {
    if (field !== 1) return false;
    ranges.push(decodeReadRange(r.bytes()));
    return true;
  });
  return ranges;
}

function decodeReadRange(bytes: Uint8Array): ReadRange {
  const range: ReadRange = {
    start: new Uint8Array(),
    end: new Uint8Array(),
    limit: 0,
    reverse: false,
  };
  readMessage(bytes, (field, _wire, r) => {
    if (field === 1) range.start = r.bytes();
    else if (field === 2) range.end = r.bytes();
    else if (field === 3) range.limit = r.int32();
    else if (field === 4) range.reverse = r.bool();
    else return false;
    return true;
  });
  return range;
}

/** Decodes `AtomicWrite`. */
export function decodeAtomicWrite(bytes: Uint8Array): AtomicWrite {
  const out: AtomicWrite = { checks: [], mutations: [], enqueues: [] };
  readMessage(bytes, (field, _wire, r) => {
    if (field === 1) out.checks.push(decodeCheck(r.bytes()));
    else if (field === 2) out.mutations.push(decodeMutation(r.bytes()));
    else if (field === 3) out.enqueues.push(decodeEnqueue(r.bytes()));
    else return false;
    return true;
  });
  return out;
}

function decodeCheck(bytes: Uint8Array): Check {
  const check: Check = { key: new Uint8Array(), versionstamp: new Uint8Array() };
  readMessage(bytes, (field, _wire, r) => {
    if (field === 1) check.key = r.bytes();
    else if (field === 2) check.versionstamp = r.bytes();
    else return false;
    return true;
  });
  return check;
}

function decodeMutation(bytes: Uint8Array): Mutation {
  const m: Mutation = { key: new Uint8Array(), type: 0, expireAtMs: 0n };
  readMessage(bytes, (field, _wire, r) => {
    if (field === 1) m.key = r.bytes();
    else if (field === 2) m.value = decodeKvValue(r.bytes());
    else if (field === 3) m.type = r.int32();
    else if (field === 4) m.expireAtMs = BigInt(r.int64());
    else return false;
    return true;
  });
  return m;
}

function decodeKvValue(bytes: Uint8Array): KvValue {
  const v: KvValue = { data: new Uint8Array(), encoding: 0 };
  readMessage(bytes, (field, _wire, r) => {
    if (field === 1) v.data = r.bytes();
    else if (field === 2) v.encoding = r.int32();
    else return false;
    return true;
  });
  return v;
}

function decodeEnqueue(bytes: Uint8Array): Enqueue {
  const e: Enqueue = { payload: new Uint8Array(), keysIfUndelivered: [], backoffSchedule: [] };
  readMessage(bytes, (field, wire, r) => {
    if (field === 1) e.payload = r.bytes();
    else if (field === 3) e.keysIfUndelivered.push(r.bytes());
    else if (field === 4) readUint32s(wire, r, e.backoffSchedule);
    else return false;
    return true;
  });
  return e;
}

/** Decodes `Watch` into its keys. */
export function decodeWatch(bytes: Uint8Array): Uint8Array[] {
  const keys: Uint8Array[] = [];
  readMessage(bytes, (field, _wire, r) => {
    if (field !== 1) return false;
    readMessage(r.bytes(), (f, _w, inner) => {
      if (f !== 1) return false;
      keys.push(inner.bytes());
      return true;
    });
    return true;
  });
  return keys;
}

function writeEntry(w: BinaryWriter, entry: KvEntry): void {
  w.tag(1, WireType.LengthDelimited).bytes(entry.key);
  w.tag(2, WireType.LengthDelimited).bytes(entry.value);
  w.tag(3, WireType.Varint).int32(entry.encoding);
  w.tag(4, WireType.LengthDelimited).bytes(entry.versionstamp);
}

/** Encodes `SnapshotReadOutput` (strongly consistent, `SR_SUCCESS`). */
export function encodeSnapshotReadOutput(ranges: KvEntry[][]): Uint8Array {
  const w = new BinaryWriter();
  for (const entries of ranges) {
    w.tag(1, WireType.LengthDelimited).fork();
    for (const entry of entries) {
      w.tag(1, WireType.LengthDelimited).fork();
      writeEntry(w, entry);
      w.join();
    }
    w.join();
  }
  w.tag(4, WireType.Varint).bool(true);
  w.tag(8, WireType.Varint).int32(SR_SUCCESS);
  return w.finish();
}

/** Encodes `AtomicWriteOutput`. */
export function encodeAtomicWriteOutput(status: number, versionstamp?: Uint8Array): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, WireType.Varint).int32(status);
  if (versionstamp) w.tag(2, WireType.LengthDelimited).bytes(versionstamp);
  return w.finish();
}

/** Encodes `WatchOutput` (`SR_SUCCESS`). */
export function encodeWatchOutput(keys: WatchKeyOutput[]): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, WireType.Varint).int32(SR_SUCCESS);
  for (const key of keys) {
    w.tag(2, WireType.LengthDelimited).fork();
    w.tag(1, WireType.Varint).bool(key.changed);
    if (key.entry) {
      w.tag(2, WireType.LengthDelimited).fork();
      writeEntry(w, key.entry);
      w.join();
    }
    w.join();
  }
  return w.finish();
}

// Request encoders and response decoders, for tests that speak the protocol without Deno's client.

/** Encodes `SnapshotRead`. */
export function encodeSnapshotRead(ranges: ReadRange[]): Uint8Array {
  const w = new BinaryWriter();
  for (const range of ranges) {
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).bytes(range.start);
    w.tag(2, WireType.LengthDelimited).bytes(range.end);
    w.tag(3, WireType.Varint).int32(range.limit);
    if (range.reverse) w.tag(4, WireType.Varint).bool(true);
    w.join();
  }
  return w.finish();
}

/** Encodes `AtomicWrite`. */
export function encodeAtomicWrite(write: AtomicWrite): Uint8Array {
  const w = new BinaryWriter();
  for (const c of write.checks) {
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).bytes(c.key);
    w.tag(2, WireType.LengthDelimited).bytes(c.versionstamp);
    w.join();
  }
  for (const m of write.mutations) {
    w.tag(2, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).bytes(m.key);
    if (m.value) {
      w.tag(2, WireType.LengthDelimited).fork();
      w.tag(1, WireType.LengthDelimited).bytes(m.value.data);
      w.tag(2, WireType.Varint).int32(m.value.encoding);
      w.join();
    }
    w.tag(3, WireType.Varint).int32(m.type);
    w.tag(4, WireType.Varint).int64(m.expireAtMs);
    w.join();
  }
  for (const e of write.enqueues) {
    w.tag(3, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).bytes(e.payload);
    w.tag(2, WireType.Varint).int64(Date.now());
    w.join();
  }
  return w.finish();
}

/** Decodes `AtomicWriteOutput` into its status and versionstamp. */
export function decodeAtomicWriteOutput(
  bytes: Uint8Array,
): { status: number; versionstamp: Uint8Array } {
  const out: { status: number; versionstamp: Uint8Array } = {
    status: 0,
    versionstamp: new Uint8Array(),
  };
  readMessage(bytes, (field, _wire, r) => {
    if (field === 1) out.status = r.int32();
    else if (field === 2) out.versionstamp = r.bytes();
    else return false;
    return true;
  });
  return out;
}

/** Decodes `SnapshotReadOutput` into its ranges of entries. */
export function decodeSnapshotReadOutput(bytes: Uint8Array): KvEntry[][] {
  const ranges: KvEntry[][] = [];
  readMessage(bytes, (field, _wire, r) => {
    if (field !== 1) return false;
    const entries: KvEntry[] = [];
    readMessage(r.bytes(), (f, _w, inner) => {
      if (f !== 1) return false;
      entries.push(decodeEntry(inner.bytes()));
      return true;
    });
    ranges.push(entries);
    return true;
  });
  return ranges;
}

function decodeEntry(bytes: Uint8Array): KvEntry {
  const e: KvEntry = {
    key: new Uint8Array(),
    value: new Uint8Array(),
    encoding: 0,
    versionstamp: new Uint8Array(),
  };
  readMessage(bytes, (field, _wire, r) => {
    if (field === 1) e.key = r.bytes();
    else if (field === 2) e.value = r.bytes();
    else if (field === 3) e.encoding = r.int32();
    else if (field === 4) e.versionstamp = r.bytes();
    else return false;
    return true;
  });
  return e;
}

/** Encodes `Watch`. */
export function encodeWatch(keys: Uint8Array[]): Uint8Array {
  const w = new BinaryWriter();
  for (const key of keys) {
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).bytes(key);
    w.join();
  }
  return w.finish();
}
