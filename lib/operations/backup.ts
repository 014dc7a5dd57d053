/**
 * Backups of the whole KV and their restore (issue #14; streamed and restartable since #19).
 *
 * **Consistency.** A Deno KV `list` is read page by page, each page its own strongly consistent
 * read, so a walk of a live KV is not one snapshot: a member saving an entry while the walk is
 * between pages can leave the backup with the entry but not the `record_versions` bump of the same
 * commit. For a KV file (`KV_PATH`, the self-hosted case) the backup therefore first copies the
 * file with SQLite's `VACUUM INTO` (through `node:sqlite`), which reads inside one SQLite read
 * transaction — in WAL mode it neither blocks the service's writers nor sees half a commit — and
 * then walks the copy, which nothing else writes. The copy is made next to the backup file, under
 * one recognisable name, and a stale one (left by an interrupted run) is removed first: a copy of
 * the KV is a copy of every member's records, and a temp directory is where nobody looks for it.
 * A remote KV (`KV_URL`, Deno Deploy, `denokv`) has no file to copy: there the walk is repeated
 * until two consecutive walks agree on every key and versionstamp, which no commit landing during
 * them can fake (each changes a versionstamp). That walk reads durable keys only
 * (`KEY_DURABILITY` in lib/foundation/kv_keys.ts): the limiter's counters change on every flush,
 * so walks that read them never agree under traffic (issue #21, item 7), and counters, probes,
 * stamps, leases and short-lived OAuth secrets are not worth restoring. It reads the ranges
 * between the volatile prefixes — their keys are never fetched — 1,000 entries per round trip
 * (the most a KV Connect read returns; `list`'s default is 100).
 *
 * **Memory.** Entries stream from the walk into the gzip and from the file into the restore's
 * commits (lib/operations/backup_file.ts); neither side holds the KV.
 *
 * **Restore.** Only into an empty KV. Emptiness is checked once, then a marker key
 * (`restore_in_progress`) is created, and every commit checks the marker's versionstamp and
 * advances the count of the file's entries it has dealt with — one check per commit, so a commit
 * stays within the strictest KV's limits (the self-hosted `denokv` allows 10 checks, Deno KV 100,
 * 1,000 mutations and 800 KiB per atomic). An interrupted restore leaves the marker: a rerun with
 * the same file resumes where the last commit ended, another file is refused, and the service
 * refuses to start on the half-restored KV (lib/operations/migrations.ts). The last commit removes
 * the marker.
 */

import { createHash, type Hash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { commitKv } from "../foundation/kv_commit.ts";
import { isVolatileKey, keys, volatilePrefixes } from "../foundation/kv_keys.ts";
import { keySize, KV_LIMITS } from "../foundation/kv_limits.ts";
import { ACTIVE_MS } from "../record/coach_schedule.ts";
import {
  approxBytes,
  type BackupEntry,
  type BackupHeader,
  BackupRefused,
  readBackup,
  writeBackupStream,
} from "./backup_file.ts";

export {
  BACKUP_FORMAT,
  type BackupEntry,
  type BackupHeader,
  BackupRefused,
  readBackup,
} from "./backup_file.ts";

/** The `VACUUM INTO` copy, next to the backup file (its -wal and -shm files beside it). */
export const SNAPSHOT_COPY = "routine-tracker-backup-copy.sqlite3";

/** Where the KV lives: a file path, or null for a remote or attached KV. */
export function kvFileOf(kvPath: string): string | null {
  return kvPath === "" || kvPath === ":memory:" || /^https?:\/\//.test(kvPath) ? null : kvPath;
}

/** A key as text for a fingerprint (each part with its type; never read back). */
const keyText = (key: Deno.KvKey) =>
  JSON.stringify(key.map((p) => [typeof p, p instanceof Uint8Array ? [...p] : String(p)]));

/** A KV Connect read returns at most 1,000 entries (denokv `MAX_READ_ENTRIES`). */
const WALK_BATCH = 1000;

const asEntry = (e: Deno.KvEntry<unknown>): BackupEntry =>
  e.value instanceof Deno.KvU64 ? [e.key, e.value.value, 1] : [e.key, e.value, 0];

/** Every entry of `kv` in key order (a consistent copy: the file backup keeps every key). */
async function* entriesOf(kv: Deno.Kv): AsyncGenerator<BackupEntry> {
  for await (const e of kv.list({ prefix: keys.everything() }, { batchSize: WALK_BATCH })) {
    yield asEntry(e);
  }
}

/**
 * The selectors of the key ranges between the volatile prefixes, in key order. `[p + "\0"]`
 * sorts after every key below `[p]` (a part's type byte is below the 0xFF that escapes a 0 byte
 * inside a string) and before any other first part.
 */
function durableRanges(): Deno.KvListSelector[] {
  const ranges: Deno.KvListSelector[] = [];
  let start: Deno.KvKey | undefined;
  for (const prefix of volatilePrefixes()) {
    ranges.push(start ? { start, end: [prefix] } : { prefix: [], end: [prefix] });
    start = [prefix + "\0"];
  }
  ranges.push(start ? { prefix: [], start } : { prefix: [] });
  return ranges;
}

/** The durable entries of a live `kv` in key order; `fingerprint` sees each key and versionstamp. */
async function* durableEntriesOf(kv: Deno.Kv, fingerprint: Hash): AsyncGenerator<BackupEntry> {
  for (const range of durableRanges()) {
    for await (const e of kv.list(range, { batchSize: WALK_BATCH })) {
      if (isVolatileKey(e.key)) continue;
      fingerprint.update(e.versionstamp).update(keyText(e.key));
      yield asEntry(e);
    }
  }
}

async function removeCopy(copy: string): Promise<void> {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    await Deno.remove(copy + suffix).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
}

/** Copies the KV file `path` to `copy` in one SQLite read transaction. */
function vacuumInto(path: string, copy: string): void {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    db.prepare("VACUUM INTO ?").run(copy);
  } finally {
    db.close();
  }
}

/** Runs `use` on a consistent copy of the KV file `path`, made in `dir` and removed afterwards. */
async function withFileSnapshot<T>(
  path: string,
  dir: string,
  use: (copy: Deno.Kv) => Promise<T>,
): Promise<T> {
  // The folder itself is locked (flock) while a backup uses the copy, so two backups into one
  // folder take turns, and no lock file is left among the backups.
  using lock = await Deno.open(dir, { read: true });
  await lock.lock(true);
  const copy = join(dir, SNAPSHOT_COPY);
  await removeCopy(copy); // a stale copy from an interrupted run
  try {
    vacuumInto(path, copy);
    const kv = await Deno.openKv(copy);
    try {
      return await use(kv);
    } finally {
      kv.close();
    }
  } finally {
    await removeCopy(copy);
  }
}

/** Writes walks of a live `kv`'s durable keys to `partial` until two in a row agree (module comment). */
async function writeStableWalk(
  kv: Deno.Kv,
  partial: string,
  meta: { serviceVersion: string; now: Date },
): Promise<void> {
  let previous = "";
  for (let walk = 0; walk <= 20; walk++) {
    const fingerprint = createHash("sha256");
    await writeBackupStream(partial, durableEntriesOf(kv, fingerprint), meta);
    const current = fingerprint.digest("hex");
    if (current === previous) return;
    previous = current;
  }
  throw new BackupRefused("The KV kept changing during 20 walks; try the backup again.");
}

/**
 * Writes a backup of `kv` to `file` via `<file>.partial`, which is read back and checked whole
 * before it takes the name: a half-written or unreadable backup never exists under `file`.
 */
export async function writeBackupFile(
  kv: Deno.Kv,
  options: { kvPath: string; file: string; serviceVersion: string },
): Promise<BackupHeader> {
  const partial = `${options.file}.partial`;
  const meta = { serviceVersion: options.serviceVersion, now: new Date() };
  const kvFile = kvFileOf(options.kvPath);
  const dir = dirname(resolve(options.file));
  if (!await Deno.stat(dir).then((s) => s.isDirectory, () => false)) {
    throw new BackupRefused(`The folder ${dir} does not exist: create it first.`);
  }
  try {
    if (kvFile) {
      await withFileSnapshot(
        kvFile,
        dir,
        (copy) => writeBackupStream(partial, entriesOf(copy), meta),
      );
    } else {
      await writeStableWalk(kv, partial, meta);
    }
    const header = await readBackup(partial, () => {});
    await Deno.rename(partial, options.file);
    return header;
  } catch (err) {
    await Deno.remove(partial).catch(() => {});
    if (err instanceof BackupRefused || err instanceof Deno.errors.NotFound) throw err;
    // A full disk, a folder the service user cannot write: the operator's message, not a stack.
    throw new BackupRefused(
      `The backup failed: ${(err as Error).message}. Nothing was written under ${options.file}.`,
    );
  }
}

/** When a restored key should expire, from the expiry its own value records (null: never). */
function expiryOf(key: Deno.KvKey, value: unknown): number | null {
  if (key[0] === keys.sessionOfMember("", "")[0] && typeof value === "number") return value;
  const v = value as { expiresAt?: unknown; dueAt?: unknown } | null;
  if (typeof v?.expiresAt === "number") return v.expiresAt;
  if (key[0] === keys.coachDueAll()[0] && typeof v?.dueAt === "number") return v.dueAt + ACTIVE_MS;
  return null;
}

/** What the `restore_in_progress` marker records. */
export interface RestoreMark {
  /** The backup's checksum: which backup is being restored. */
  sha256: string;
  /** The file it was restored from (for the operator's message). */
  file: string;
  createdAt: string;
  entries: number;
  /** How many of the file's entries (in file order) are dealt with: written or expired. */
  done: number;
  startedAt: string;
}

/**
 * Per commit: half of the strictest supported KV's limits (lib/foundation/kv_limits.ts: 1,000
 * mutations, 819,200 bytes of keys and values, 81,920 bytes of keys per atomic), since a value's
 * size here is an estimate (`approxBytes`), close to but not the same as the KV's own encoding.
 */
const BATCH_MUTATIONS = KV_LIMITS.mutationsPerAtomic / 2;
const BATCH_BYTES = KV_LIMITS.atomicBytes / 2;
const BATCH_KEY_BYTES = KV_LIMITS.atomicKeyBytes / 2;

const RESTORE_KEY = keys.restoreInProgress();

const isMarker = (key: Deno.KvKey) => key.length === 1 && key[0] === RESTORE_KEY[0];

type Pending = { key: Deno.KvKey; value: unknown; expireIn?: number };

/** Writes a backup's entries in commits guarded by the marker (module comment). */
class Restorer {
  #pending: Pending[] = [];
  #bytes = 0;
  #keyBytes = 0;
  /** Entries of the file seen so far, in file order. */
  #seen = 0;
  written = 0;

  constructor(
    private kv: Deno.Kv,
    private mark: RestoreMark,
    private versionstamp: string,
    private now: number,
  ) {}

  /** The next entry of the file; those an earlier run dealt with are passed over. */
  async add([key, raw, u64]: BackupEntry): Promise<void> {
    if (++this.#seen <= this.mark.done || isMarker(key)) return;
    const value = u64 ? new Deno.KvU64(raw as bigint) : ownBuffers(raw);
    const expiry = expiryOf(key, value);
    if (expiry !== null && expiry <= this.now) return;
    const keyBytes = keySize(key);
    const size = keyBytes + approxBytes(value);
    if (
      this.#pending.length >= BATCH_MUTATIONS || this.#bytes + size > BATCH_BYTES ||
      this.#keyBytes + keyBytes > BATCH_KEY_BYTES
    ) await this.#commit(this.#seen - 1, false);
    this.#pending.push({ key, value, expireIn: expiry === null ? undefined : expiry - this.now });
    this.#bytes += size;
    this.#keyBytes += keyBytes;
  }

  /** Writes what is pending and removes the marker. */
  finish(): Promise<void> {
    return this.#commit(this.#seen, true);
  }

  get done(): number {
    return this.mark.done;
  }

  async #commit(done: number, last: boolean): Promise<void> {
    const batch = this.#pending;
    const mark = { ...this.mark, done };
    const res = await commitKv(() => {
      const op = this.kv.atomic().check({ key: RESTORE_KEY, versionstamp: this.versionstamp });
      for (const p of batch) {
        op.set(p.key, p.value, p.expireIn === undefined ? undefined : { expireIn: p.expireIn });
      }
      return last ? op.delete(RESTORE_KEY) : op.set(RESTORE_KEY, mark);
    });
    if (!res.ok) {
      throw new Error("another process changed the restore marker (two restores at once?)");
    }
    [this.mark, this.versionstamp, this.written] = [
      mark,
      res.versionstamp,
      this.written + batch.length,
    ];
    [this.#pending, this.#bytes, this.#keyBytes] = [[], 0, 0];
  }
}

/** The marker of an unfinished restore in `kv`, if any. */
export async function unfinishedRestore(kv: Deno.Kv): Promise<RestoreMark | null> {
  return (await kv.get<RestoreMark>(RESTORE_KEY)).value;
}

/** How to finish (or leave) the unfinished restore `mark`, for the operator. */
export function unfinishedRestoreMessage(mark: RestoreMark): string {
  return `This KV holds an unfinished restore of the backup ${mark.file} (taken ${mark.createdAt}; ` +
    `${mark.done} of ${mark.entries} keys dealt with). Finish it with ` +
    `\`deno task admin restore ${mark.file}\`, or restore into a new, empty KV file instead.`;
}

/** Creates the marker in an empty `kv`, or finds the marker of the same backup to resume. */
async function beginRestore(
  kv: Deno.Kv,
  header: BackupHeader,
  file: string,
): Promise<{ mark: RestoreMark; versionstamp: string; resumed: boolean }> {
  const current = await kv.get<RestoreMark>(RESTORE_KEY);
  if (current.value) {
    if (current.value.sha256 === header.sha256) {
      return { mark: current.value, versionstamp: current.versionstamp!, resumed: true };
    }
    throw new BackupRefused(unfinishedRestoreMessage(current.value));
  }
  for await (const _ of kv.list({ prefix: keys.everything() }, { limit: 1 })) {
    throw new BackupRefused("The target KV is not empty: restore only into a new, empty KV file.");
  }
  const mark: RestoreMark = {
    sha256: header.sha256,
    file: resolve(file),
    createdAt: header.createdAt,
    entries: header.entries,
    done: 0,
    startedAt: new Date().toISOString(),
  };
  const res = await commitKv(() =>
    kv.atomic().check({ key: RESTORE_KEY, versionstamp: null }).set(RESTORE_KEY, mark)
  );
  if (!res.ok) throw new BackupRefused("Another restore into this KV began at the same moment.");
  return { mark, versionstamp: res.versionstamp, resumed: false };
}

/** What a restore did. */
export interface RestoreResult {
  header: BackupHeader;
  /** Keys this run wrote (expired ones are left out). */
  written: number;
  /** Entries an interrupted earlier run had dealt with; null: a fresh restore. */
  resumedAt: number | null;
}

/**
 * Checks the backup `file` whole (first pass), then restores it into the empty `kv` (second pass),
 * or resumes an interrupted restore of the same file. Keys whose recorded expiry has passed are
 * left out; the rest get their remaining time as `expireIn`. A failure part way is reported as
 * `BackupRefused` saying how far it got and that a rerun resumes.
 */
export async function restoreBackupFile(
  kv: Deno.Kv,
  file: string,
  now = Date.now(),
): Promise<RestoreResult> {
  const header = await readBackup(file, () => {});
  const { mark, versionstamp, resumed } = await beginRestore(kv, header, file);
  const restorer = new Restorer(kv, mark, versionstamp, now);
  try {
    await readBackup(file, (entry) => restorer.add(entry));
    await restorer.finish();
  } catch (err) {
    throw new BackupRefused(
      `The restore stopped after ${restorer.done} of ${header.entries} keys: ` +
        `${(err as Error).message}. The KV is incomplete and the service will not start on it; ` +
        `run the same restore again to finish it (it resumes where it stopped).`,
    );
  }
  return { header, written: restorer.written, resumedAt: resumed ? mark.done : null };
}

/**
 * `value` with every typed array or DataView on a buffer of its own. node:v8's deserializer gives
 * each one as a view into the buffer of the whole block it read (up to 256 KB, `BLOCK_BYTES`), and
 * Deno KV serialises a view with its whole buffer: a record snapshot part of 62 KB, stored as
 * read, was refused as "Value too large (max 65536 bytes)" (issue #22, `bench:big`'s restore).
 * Walks arrays, plain objects, Maps and Sets, the containers KV values here are made of.
 */
function ownBuffers(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) {
    if (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength) return value;
    if (value instanceof DataView) {
      return new DataView(
        value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength),
      );
    }
    return (value as Uint8Array).slice();
  }
  if (Array.isArray(value)) return value.map(ownBuffers);
  if (value instanceof Map) {
    return new Map([...value].map(([k, v]) => [ownBuffers(k), ownBuffers(v)]));
  }
  if (value instanceof Set) return new Set([...value].map(ownBuffers));
  if (value !== null && typeof value === "object" && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = ownBuffers(v);
    return out;
  }
  return value;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
