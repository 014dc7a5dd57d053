/**
 * The backup file (issue #14; streamed since issue #19), written and read without holding the KV
 * in memory.
 *
 * **Format 2** (written now): gzip of the line `RTBACKUP 2`, one JSON header line (format, time,
 * service version), the body — records, each a 4-byte big-endian length and a block of up to 1,000
 * entries (about 256 KB) as one V8 structured-clone buffer (`node:v8`, the encoding Deno KV itself
 * uses for values, so every key part and value type survives; `Deno.KvU64` is tagged, since it
 * clones as a plain object) — a zero length that ends the body, and one JSON trailer line: the entry count, the body
 * length, the KV's data format and the SHA-256 of the header line and the body. The trailer comes
 * last because a stream knows those only at its end.
 *
 * **Format 1** (issue #14, still read): the same two lines, the header also carrying the count,
 * length, data format and checksum, then the entries as ONE structured-clone buffer; reading it
 * needs the whole body in memory, which is why format 2 replaced it.
 *
 * The checksum detects damage (a truncated copy, a flipped bit), not tampering: anyone who can
 * change the file can recompute it. Tamper evidence needs a signature kept apart from the file
 * (content/docs/backups.md).
 */

import { Buffer } from "node:buffer";
import { createHash, type Hash } from "node:crypto";
import { deserialize, serialize } from "node:v8";
import { keys } from "../foundation/kv_keys.ts";

/** The backup file format this code writes and the newest it reads. */
export const BACKUP_FORMAT = 2;
const MAGIC = "RTBACKUP";
/** Longer header or trailer lines are not ours (a bound, so a stray file is not read whole). */
const MAX_LINE = 64 * 1024;
/** A record is a block of entries: up to this many, or until they reach about `BLOCK_BYTES`. */
const BLOCK_ENTRIES = 100;
const BLOCK_BYTES = 256 * 1024;
/** A block plus one entry (≤ 2 KiB key, ≤ 64 KiB value), with generous slack. */
const MAX_RECORD = 16 * 1024 * 1024;
/** Records are gathered into chunks of about this size before gzip. */
const CHUNK = 64 * 1024;

/** One stored pair; `u64` marks a `Deno.KvU64` value (stored as its bigint). */
export type BackupEntry = [key: Deno.KvKey, value: unknown, u64: 0 | 1];

/** What a checked backup says about itself (both formats). */
export interface BackupHeader {
  format: number;
  createdAt: string;
  serviceVersion: string;
  /** The KV's data format (lib/operations/migrations.ts) at backup time; null: none stored. */
  dataFormat: number | null;
  entries: number;
  bodyBytes: number;
  sha256: string;
}

/** A backup file that cannot be restored; the message says why, for the operator. */
export class BackupRefused extends Error {}

/** The data format recorded in a stream of entries (as `readDataFormat` reads a live KV). */
export class DataFormatSeen {
  #stamp: number | null = null;
  #members = false;
  see([key, value]: BackupEntry): void {
    if (key.length === 1 && key[0] === keys.dataFormat()[0]) this.#stamp = value as number;
    if (key[0] === keys.membersAll()[0]) this.#members = true;
  }
  get value(): number | null {
    return this.#stamp ?? (this.#members ? 0 : null);
  }
}

/**
 * About how many bytes `value` takes in the V8 or Deno KV key encoding; never much less. Calling
 * `serialize` per entry instead costs ~0.1 ms and native memory that outlives the call (measured,
 * issue #19).
 */
export function approxBytes(value: unknown): number {
  switch (typeof value) {
    case "string":
      return stringBytes(value);
    case "number":
    case "bigint":
      return 9;
    case "object":
      return value === null ? 1 : objectBytes(value);
    default:
      return 1;
  }
}

/**
 * The larger of a string's UTF-8 length (keys) and its V8 length (values): V8 stores a string
 * one byte a character, or two for every character once any is beyond U+00FF.
 */
function stringBytes(value: string): number {
  // deno-lint-ignore no-control-regex
  const v8 = /[^\u0000-\u00ff]/.test(value) ? 2 * value.length : value.length;
  return Math.max(Buffer.byteLength(value), v8) + 3;
}

function objectBytes(value: object): number {
  if (ArrayBuffer.isView(value)) return value.byteLength + 5;
  if (value instanceof ArrayBuffer) return value.byteLength + 5;
  if (value instanceof Date || value instanceof Deno.KvU64) return 9;
  let n = 3;
  if (Array.isArray(value) || value instanceof Set) { for (const v of value) n += approxBytes(v); }
  else if (value instanceof Map) {
    for (const [k, v] of value) {
      n += approxBytes(k) + approxBytes(v);
    }
  } else for (const [k, v] of Object.entries(value)) n += approxBytes(k) + approxBytes(v);
  return n;
}

/** Frames entries as format-2 records (blocks of entries), counting and hashing them. */
class RecordWriter {
  readonly hash: Hash = createHash("sha256");
  readonly dataFormat = new DataFormatSeen();
  entries = 0;
  bodyBytes = 0;
  #block: BackupEntry[] = [];
  #blockBytes = 0;
  #parts: Uint8Array[] = [];
  #size = 0;

  add(bytes: Uint8Array): void {
    this.hash.update(bytes);
    this.#parts.push(bytes);
    this.#size += bytes.length;
  }

  entry(entry: BackupEntry): void {
    this.#block.push(entry);
    this.#blockBytes += approxBytes(entry[0]) + approxBytes(entry[1]);
    this.entries++;
    this.dataFormat.see(entry);
    if (this.#block.length >= BLOCK_ENTRIES || this.#blockBytes >= BLOCK_BYTES) this.endBlock();
  }

  /** Writes the gathered entries as one record. */
  endBlock(): void {
    if (this.#block.length === 0) return;
    const body = serialize(this.#block);
    const head = new Uint8Array(4);
    new DataView(head.buffer).setUint32(0, body.length);
    this.add(head);
    this.add(body);
    this.bodyBytes += 4 + body.length;
    [this.#block, this.#blockBytes] = [[], 0];
  }

  get full(): boolean {
    return this.#size >= CHUNK;
  }

  /** The gathered bytes, as one chunk. */
  take(): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(Buffer.concat(this.#parts, this.#size));
    this.#parts = [];
    this.#size = 0;
    return out;
  }
}

const encode = (text: string) => new TextEncoder().encode(text);

/** The plain (not yet gzipped) bytes of a format-2 backup of `entries`, in chunks. */
async function* plainChunks(
  entries: AsyncIterable<BackupEntry>,
  meta: { serviceVersion: string; now: Date },
  done: (header: BackupHeader) => void,
): AsyncGenerator<Uint8Array<ArrayBuffer>> {
  const first = { format: BACKUP_FORMAT, createdAt: meta.now.toISOString() };
  const out = new RecordWriter();
  yield encode(`${MAGIC} ${BACKUP_FORMAT}\n`);
  out.add(encode(`${JSON.stringify({ ...first, serviceVersion: meta.serviceVersion })}\n`));
  for await (const entry of entries) {
    out.entry(entry);
    if (out.full) yield out.take();
  }
  out.endBlock();
  out.add(new Uint8Array(4)); // the zero length that ends the body
  const header: BackupHeader = {
    ...first,
    serviceVersion: meta.serviceVersion,
    dataFormat: out.dataFormat.value,
    entries: out.entries,
    bodyBytes: out.bodyBytes + 4,
    sha256: out.hash.digest("hex"),
  };
  const { entries: n, bodyBytes, dataFormat, sha256 } = header;
  yield out.take();
  yield encode(`${JSON.stringify({ entries: n, bodyBytes, dataFormat, sha256 })}\n`);
  done(header);
}

/**
 * Writes `entries` as a gzipped format-2 backup to `path` (mode 600: health records), streaming:
 * memory holds one chunk, never the KV. Returns what the trailer says.
 */
export async function writeBackupStream(
  path: string,
  entries: AsyncIterable<BackupEntry>,
  meta: { serviceVersion: string; now: Date },
): Promise<BackupHeader> {
  let header: BackupHeader | null = null;
  const file = await Deno.open(path, { write: true, create: true, truncate: true, mode: 0o600 });
  await ReadableStream.from(plainChunks(entries, meta, (h) => header = h))
    .pipeThrough(new CompressionStream("gzip"))
    .pipeTo(file.writable);
  return header!;
}

const damaged = (why: string) =>
  new BackupRefused(`The backup file is damaged or not a backup (${why}); nothing was restored.`);

/** Reads a gunzipped stream by lines and by exact lengths. */
class ByteReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buf: Uint8Array = new Uint8Array(0);
  #pos = 0;
  #ended = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  get #left(): number {
    return this.#buf.length - this.#pos;
  }

  /** Reads one more chunk into the buffer; false at the end of the stream. */
  async #more(): Promise<boolean> {
    if (this.#ended) return false;
    let next;
    try {
      next = await this.#reader.read();
    } catch (err) {
      throw damaged(`gzip: ${(err as Error).message}`);
    }
    if (next.done) return !(this.#ended = true);
    const rest = this.#buf.subarray(this.#pos);
    this.#buf = rest.length ? Buffer.concat([rest, next.value]) : next.value;
    this.#pos = 0;
    return true;
  }

  /** The next line (without its newline), or null if none ends within `MAX_LINE` bytes. */
  async line(): Promise<string | null> {
    for (let from = 0;;) {
      const end = this.#buf.indexOf(10, this.#pos + from);
      if (end >= 0) {
        const text = new TextDecoder().decode(this.#buf.subarray(this.#pos, end));
        this.#pos = end + 1;
        return text;
      }
      from = this.#left;
      if (from > MAX_LINE || !await this.#more()) return null;
    }
  }

  /** Exactly `n` bytes, or null if the stream ends first. */
  async bytes(n: number): Promise<Uint8Array | null> {
    while (this.#left < n) if (!await this.#more()) return null;
    const out = this.#buf.subarray(this.#pos, this.#pos + n);
    this.#pos += n;
    return out;
  }

  /** True if nothing follows. */
  async atEnd(): Promise<boolean> {
    return this.#left === 0 && !await this.#more();
  }

  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

function parseJson(line: string | null, what: string): Record<string, unknown> {
  try {
    const value = line === null ? null : JSON.parse(line);
    if (value && typeof value === "object") return value;
  } catch { /* reported below */ }
  throw damaged(`no ${what}`);
}

const mismatch = () =>
  new BackupRefused(
    "The backup's checksum does not match its contents: the file is damaged (changed or " +
      "truncated since it was written); nothing was restored.",
  );

/** Opens `path` gunzipped, read past the magic line; refuses other files and newer formats. */
async function open(path: string): Promise<{ reader: ByteReader; format: number }> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw err;
    throw new BackupRefused(`Cannot read ${path}: ${(err as Error).message}`);
  }
  const reader = new ByteReader(file.readable.pipeThrough(new DecompressionStream("gzip")));
  try {
    return { reader, format: formatOf(await reader.line()) };
  } catch (err) {
    await reader.close();
    throw err;
  }
}

/** The format named by the magic line; refuses other files and newer formats. */
function formatOf(line: string | null): number {
  const [name, version] = (line ?? "").split(" ");
  if (name !== MAGIC) throw new BackupRefused("This is not a Routine Tracker backup.");
  if (!(Number(version) >= 1 && Number(version) <= BACKUP_FORMAT)) {
    throw new BackupRefused(
      `This backup has format ${version}, newer than this version reads (${BACKUP_FORMAT}): ` +
        `restore it with the Routine Tracker version that wrote it, or a newer one.`,
    );
  }
  return Number(version);
}

/**
 * A decoded record, checked to be a block of entries. A checksum-valid file always is one; a
 * damaged record usually fails here, before the checksum at the end is reached, and is reported
 * as the checksum failure it is.
 */
function blockOf(bytes: Uint8Array): BackupEntry[] {
  let block: unknown;
  try {
    block = deserialize(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  } catch {
    throw mismatch();
  }
  const isEntry = (e: unknown) => Array.isArray(e) && Array.isArray(e[0]) && e.length === 3;
  if (!Array.isArray(block) || !block.every(isEntry)) throw mismatch();
  return block as BackupEntry[];
}

/** The records of a format-2 body; `hash` sees every byte, `count` every entry. */
async function* records(
  reader: ByteReader,
  tally: { hash: Hash; count: number; bytes: number },
): AsyncGenerator<BackupEntry[]> {
  for (;;) {
    const head = await reader.bytes(4);
    if (!head) throw mismatch();
    tally.hash.update(head);
    tally.bytes += 4;
    const length = new DataView(head.buffer, head.byteOffset, 4).getUint32(0);
    if (length === 0) return;
    if (length > MAX_RECORD) throw mismatch();
    const body = await reader.bytes(length);
    if (!body) throw mismatch();
    tally.hash.update(body);
    tally.bytes += length;
    const block = blockOf(body);
    tally.count += block.length;
    yield block;
  }
}

/** A format-1 file after its magic line: its header and its entries (all in memory). */
async function readFormat1(reader: ByteReader): Promise<[BackupHeader, BackupEntry[]]> {
  const header = parseJson(await reader.line(), "header") as unknown as BackupHeader;
  const body = await reader.bytes(header.bodyBytes);
  if (!body || !await reader.atEnd()) throw mismatch();
  const sum = createHash("sha256").update(body).digest("hex");
  if (sum !== header.sha256) throw mismatch();
  return [header, deserialize(Buffer.from(body)) as BackupEntry[]];
}

/** A format-2 file after its magic line, streamed: each entry to `each`; then its header. */
async function readFormat2(
  reader: ByteReader,
  each: (entry: BackupEntry) => Promise<void> | void,
): Promise<BackupHeader> {
  const line = await reader.line();
  const first = parseJson(line, "header");
  const tally = { hash: createHash("sha256").update(`${line}\n`), count: 0, bytes: 0 };
  for await (const block of records(reader, tally)) for (const entry of block) await each(entry);
  const trailer = parseJson(await reader.line(), "trailer");
  if (
    !await reader.atEnd() || trailer.sha256 !== tally.hash.digest("hex") ||
    trailer.entries !== tally.count || trailer.bodyBytes !== tally.bytes
  ) throw mismatch();
  return { ...first, ...trailer } as unknown as BackupHeader;
}

/**
 * Reads the backup at `path` from start to end, giving each entry to `each` in file order, and
 * checks gzip, magic line, format and checksum; returns the header. Throws `BackupRefused` (or
 * NotFound) for a file that is not a whole backup. A format-2 file streams; a format-1 file is
 * checked whole before its first entry is given.
 */
export async function readBackup(
  path: string,
  each: (entry: BackupEntry) => Promise<void> | void,
): Promise<BackupHeader> {
  const { reader, format } = await open(path);
  try {
    if (format === 2) return await readFormat2(reader, each);
    const [header, entries] = await readFormat1(reader);
    for (const entry of entries) await each(entry);
    return header;
  } finally {
    await reader.close();
  }
}
