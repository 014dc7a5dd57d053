/**
 * Backups of the whole KV and their restore (issue #14).
 *
 * **Consistency.** A Deno KV `list` is read page by page, each page its own strongly consistent
 * read, so a walk of a live KV is not one snapshot: a member saving an entry while the walk is
 * between pages can leave the backup with the entry but not the `record_versions` bump of the same
 * commit. For a KV file (`KV_PATH`, the self-hosted case) the backup therefore first copies the
 * file with SQLite's `VACUUM INTO` (through `node:sqlite`), which reads inside one SQLite read
 * transaction — in WAL mode it neither blocks the service's writers nor sees half a commit — and
 * then walks the copy, which nothing else writes. A remote KV (`KV_URL`, Deno Deploy) has no file
 * to copy: there the walk is repeated until two consecutive walks agree on every key and
 * versionstamp, which no commit landing during them can fake (each changes a versionstamp).
 *
 * **File.** gzip of: the line `RTBACKUP <format>`, one JSON header line (format, time, service
 * version, data format, entry count, body length and the body's SHA-256) and the body: the entries
 * as one V8 structured-clone buffer (`node:v8`, the encoding Deno KV itself uses for values, so
 * every key part and value type survives; `Deno.KvU64` is tagged, since it clones as a plain
 * object). `restore` checks the header, the format and the checksum before it writes anything.
 */

import { Buffer } from "node:buffer";
import { DatabaseSync } from "node:sqlite";
import { deserialize, serialize } from "node:v8";
import { commitKv } from "../foundation/kv_commit.ts";
import { keys } from "../foundation/kv_keys.ts";
import { ACTIVE_MS } from "../record/coach_schedule.ts";

/** The backup file format this code writes and the newest it reads. */
export const BACKUP_FORMAT = 1;
const MAGIC = "RTBACKUP";

/** One stored pair; `u64` marks a `Deno.KvU64` value (stored as its bigint). */
export type BackupEntry = [key: Deno.KvKey, value: unknown, u64: 0 | 1];

/** The JSON line after the magic line. */
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

async function walk(kv: Deno.Kv): Promise<Deno.KvEntry<unknown>[]> {
  const out: Deno.KvEntry<unknown>[] = [];
  for await (const e of kv.list({ prefix: keys.everything() })) out.push(e);
  return out;
}

const sameWalk = (a: Deno.KvEntry<unknown>[], b: Deno.KvEntry<unknown>[]) =>
  a.length === b.length && a.every((e, i) => e.versionstamp === b[i].versionstamp);

/** A consistent copy of a KV file, walked; the copy is removed afterwards. */
async function fileSnapshot(path: string): Promise<Deno.KvEntry<unknown>[]> {
  const dir = await Deno.makeTempDir({ prefix: "rt-backup-" });
  try {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      db.exec("PRAGMA busy_timeout = 10000");
      db.prepare("VACUUM INTO ?").run(`${dir}/copy.sqlite3`);
    } finally {
      db.close();
    }
    const copy = await Deno.openKv(`${dir}/copy.sqlite3`);
    try {
      return await walk(copy);
    } finally {
      copy.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Where the KV lives: a file path, or null for a remote or attached KV. */
export function kvFileOf(kvPath: string): string | null {
  return kvPath === "" || kvPath === ":memory:" || /^https?:\/\//.test(kvPath) ? null : kvPath;
}

/** Every entry of the KV as of one moment (see the module comment for how). */
export async function snapshotEntries(kv: Deno.Kv, kvPath: string): Promise<BackupEntry[]> {
  const file = kvFileOf(kvPath);
  let entries: Deno.KvEntry<unknown>[];
  if (file) {
    entries = await fileSnapshot(file);
  } else {
    let previous = await walk(kv);
    for (let attempt = 0;; attempt++) {
      entries = await walk(kv);
      if (sameWalk(previous, entries)) break;
      if (attempt === 20) throw new Error("The KV kept changing during 20 walks; try again.");
      previous = entries;
    }
  }
  return entries.map((e) =>
    e.value instanceof Deno.KvU64 ? [e.key, e.value.value, 1] : [e.key, e.value, 0]
  );
}

async function gzip(bytes: Uint8Array, mode: "gzip" | "gunzip"): Promise<Uint8Array> {
  const stream = mode === "gzip" ? new CompressionStream("gzip") : new DecompressionStream("gzip");
  const out = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** What goes into a backup besides the entries. */
export interface BackupMeta {
  serviceVersion: string;
  dataFormat: number | null;
  now: Date;
}

/** The backup file's bytes for `entries`. */
export async function encodeBackup(entries: BackupEntry[], meta: BackupMeta): Promise<Uint8Array> {
  const body = new Uint8Array(serialize(entries));
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    createdAt: meta.now.toISOString(),
    serviceVersion: meta.serviceVersion,
    dataFormat: meta.dataFormat,
    entries: entries.length,
    bodyBytes: body.length,
    sha256: await sha256(body),
  };
  const head = new TextEncoder().encode(`${MAGIC} ${BACKUP_FORMAT}\n${JSON.stringify(header)}\n`);
  const plain = new Uint8Array(head.length + body.length);
  plain.set(head);
  plain.set(body, head.length);
  return await gzip(plain, "gzip");
}

/** A backup file that cannot be restored; the message says why, for the operator. */
export class BackupRefused extends Error {}

function lineAt(bytes: Uint8Array, start: number): [string, number] {
  const end = bytes.indexOf(10, start);
  if (end < 0) throw new BackupRefused("This is not a Routine Tracker backup (no header).");
  return [new TextDecoder().decode(bytes.subarray(start, end)), end + 1];
}

/** Checks and decodes a backup file: gzip, magic line, format version, checksum. */
export async function decodeBackup(
  file: Uint8Array,
): Promise<{ header: BackupHeader; entries: BackupEntry[] }> {
  let plain: Uint8Array;
  try {
    plain = await gzip(file, "gunzip");
  } catch (err) {
    throw new BackupRefused(
      `The backup file is damaged or not a backup (gzip: ${
        (err as Error).message
      }); nothing was restored.`,
    );
  }
  const [magic, next] = lineAt(plain, 0);
  const [name, version] = magic.split(" ");
  if (name !== MAGIC) throw new BackupRefused("This is not a Routine Tracker backup.");
  if (!(Number(version) <= BACKUP_FORMAT)) {
    throw new BackupRefused(
      `This backup has format ${version}, newer than this version reads (${BACKUP_FORMAT}): ` +
        `restore it with the Routine Tracker version that wrote it, or a newer one.`,
    );
  }
  const [json, bodyStart] = lineAt(plain, next);
  const header = JSON.parse(json) as BackupHeader;
  const body = plain.subarray(bodyStart);
  if (body.length !== header.bodyBytes || await sha256(body) !== header.sha256) {
    throw new BackupRefused(
      "The backup's checksum does not match its contents (the file was changed or truncated); " +
        "nothing was restored.",
    );
  }
  return { header, entries: deserialize(Buffer.from(body)) as BackupEntry[] };
}

/** When a restored key should expire, from the expiry its own value records (null: never). */
function expiryOf(key: Deno.KvKey, value: unknown): number | null {
  if (key[0] === keys.sessionOfMember("", "")[0] && typeof value === "number") return value;
  const v = value as { expiresAt?: unknown; dueAt?: unknown } | null;
  if (typeof v?.expiresAt === "number") return v.expiresAt;
  if (key[0] === keys.coachDueAll()[0] && typeof v?.dueAt === "number") return v.dueAt + ACTIVE_MS;
  return null;
}

/** Mutations per restore commit, well under Deno KV's 1000 and its 800 KB per-commit total. */
const RESTORE_BATCH_BYTES = 400_000;

/**
 * Writes `entries` into `kv`, which must be empty (else nothing is written). Each commit checks
 * its keys are still absent. Keys whose recorded expiry has passed are left out; the rest get
 * their remaining time as `expireIn`. Returns how many keys were written.
 */
export async function restoreEntries(
  kv: Deno.Kv,
  entries: BackupEntry[],
  now: number,
): Promise<number> {
  for await (const _ of kv.list({ prefix: keys.everything() }, { limit: 1 })) {
    throw new BackupRefused("The target KV is not empty: restore only into a new, empty KV file.");
  }
  type Pending = { key: Deno.KvKey; value: unknown; expireIn?: number };
  let pending: Pending[] = [];
  let bytes = 0, written = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const batch = pending;
    const res = await commitKv(() => {
      const op = kv.atomic();
      for (const p of batch) {
        op.check({ key: p.key, versionstamp: null })
          .set(p.key, p.value, p.expireIn === undefined ? undefined : { expireIn: p.expireIn });
      }
      return op;
    });
    if (!res.ok) throw new BackupRefused("Another writer used the target KV during the restore.");
    pending = [];
    bytes = 0;
  };
  for (const [key, raw, u64] of entries) {
    const value = u64 ? new Deno.KvU64(raw as bigint) : raw;
    const expiry = expiryOf(key, value);
    if (expiry !== null && expiry <= now) continue;
    const size = serialize([key, raw]).length;
    if (pending.length >= 200 || bytes + size > RESTORE_BATCH_BYTES) await flush();
    pending.push({ key, value, expireIn: expiry === null ? undefined : expiry - now });
    bytes += size;
    written++;
  }
  await flush();
  return written;
}

/** The data format recorded in a snapshot (as `readDataFormat` reads a live KV). */
function dataFormatIn(entries: BackupEntry[]): number | null {
  const [format] = keys.dataFormat();
  const stamp = entries.find(([key]) => key.length === 1 && key[0] === format);
  if (stamp) return stamp[1] as number;
  return entries.some(([key]) => key[0] === keys.membersAll()[0]) ? 0 : null;
}

/** Writes a backup of `kv` to `file` (via a temporary name, so a half-written file never exists). */
export async function writeBackupFile(
  kv: Deno.Kv,
  options: { kvPath: string; file: string; serviceVersion: string },
): Promise<BackupHeader> {
  const entries = await snapshotEntries(kv, options.kvPath);
  const bytes = await encodeBackup(entries, {
    serviceVersion: options.serviceVersion,
    dataFormat: dataFormatIn(entries),
    now: new Date(),
  });
  const partial = `${options.file}.partial`;
  // Health records: readable by the service user only.
  await Deno.writeFile(partial, bytes, { mode: 0o600 });
  await Deno.rename(partial, options.file);
  return (await decodeBackup(bytes)).header;
}

/** Checks the backup `file` and restores it into the empty `kv`; returns its header and count. */
export async function restoreBackupFile(
  kv: Deno.Kv,
  file: string,
): Promise<{ header: BackupHeader; written: number }> {
  const { header, entries } = await decodeBackup(await Deno.readFile(file));
  return { header, written: await restoreEntries(kv, entries, Date.now()) };
}
