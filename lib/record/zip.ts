/**
 * Reads named files out of a small zip archive (Loop Habit Tracker's CSV export), with the
 * runtime's own `DecompressionStream("deflate-raw")` — no dependency. Only what such an export
 * uses is supported: stored or deflated entries, no encryption, no Zip64 (APPNOTE.TXT §4.3).
 * Every entry is inflated under a byte cap, so a zip bomb stops at the cap.
 */

import { AppError } from "../foundation/errors.ts";
import { readCapped, StreamTooLargeError } from "../foundation/streams.ts";

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

/** Whether the bytes start like a zip archive (a local file header). */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 3 &&
    bytes[3] === 4;
}

interface CentralEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  localOffset: number;
}

function bad(why: string): AppError {
  return new AppError("invalid_request", `The zip file cannot be read: ${why}`);
}

function centralDirectory(bytes: Uint8Array): CentralEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record sits in the last 22 + 65535 (comment) bytes.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65535); i--) {
    if (view.getUint32(i, true) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw bad("no end of central directory.");
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  const entries: CentralEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL_SIGNATURE) {
      throw bad("a damaged central directory.");
    }
    const nameLength = view.getUint16(at + 28, true);
    entries.push({
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      localOffset: view.getUint32(at + 42, true),
      name: new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)),
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

async function inflate(entry: CentralEntry, bytes: Uint8Array, maxBytes: number) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL_SIGNATURE) {
    throw bad(`a damaged entry ${entry.name}.`);
  }
  if (entry.flags & 1) throw bad("encrypted entries are not supported.");
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const data = bytes.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) {
    if (data.length > maxBytes) throw bad(`${entry.name} is larger than ${maxBytes} bytes.`);
    return data;
  }
  if (entry.method !== 8) throw bad(`compression method ${entry.method} is not supported.`);
  const stream = new Blob([data.slice()]).stream().pipeThrough(
    new DecompressionStream("deflate-raw"),
  );
  try {
    return await readCapped(stream, maxBytes);
  } catch (err) {
    if (err instanceof StreamTooLargeError) {
      throw bad(`${entry.name} inflates to more than ${maxBytes} bytes.`);
    }
    throw bad(`${entry.name} does not inflate.`);
  }
}

/**
 * The text of each wanted file found at the archive's top level (by exact name, case-insensitive),
 * each inflated to at most `maxBytes`. Throws `invalid_request` for a damaged or unsupported zip.
 */
export async function readZipTexts(
  bytes: Uint8Array,
  wanted: string[],
  maxBytes: number,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of centralDirectory(bytes)) {
    const match = wanted.find((w) => w.toLowerCase() === entry.name.toLowerCase());
    if (!match || out.has(match)) continue;
    out.set(match, new TextDecoder().decode(await inflate(entry, bytes, maxBytes)));
  }
  return out;
}
