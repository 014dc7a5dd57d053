/**
 * Deleting a column with every value logged in it (issue #25: "delete a column as well as archive
 * it"; the `deleteColumn` action of `/api/proxy`). Archiving keeps the values; deleting removes
 * them from the record, so they leave History, the tools and both exports.
 *
 * Order, so that a crash loses nothing the member did not ask to lose and leaves no orphan: first
 * the values go, in parts (each one atomic commit checked against the record version, like an
 * import's), while the column still exists; last the column itself, in a commit checked against the
 * record version read during a pass that found no value left. A save that lands in between makes
 * that commit fail, and the loop sweeps again. Stopped midway, the column is still listed with
 * fewer values and deleting it again finishes the job; a value can never outlive its column (a
 * later column with the same key starts empty).
 */

import { AppError } from "../foundation/errors.ts";
import { RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { valueSize } from "../foundation/kv_limits.ts";
import type { DayNumber } from "../foundation/dates.ts";
import {
  allEntries,
  readColumnsEntry,
  recordVersionEntry,
  type StoreContext,
  type StoredEntry,
  writeEntries,
} from "./store.ts";

/** Entries rewritten per commit: far under the 1,000 mutations of one atomic operation. */
const PART_DAYS = 500;
/** Bytes of rewritten entries per commit, under the 819,200 of one atomic (kv_limits.ts). */
const PART_BYTES = 600 * 1024;
/** An entry key (`entries`, member id, day) is at most this many bytes. */
const ENTRY_KEY_BYTES = 64;

/** What `deleteColumn` answers. */
export interface DeletedColumn {
  key: string;
  /** Days whose value in the column was removed (a skip counts: it was logged). */
  deletedValues: number;
}

/** One part of the sweep: entries that keep something, and days left with nothing. */
interface SweepPart {
  entries: { day: DayNumber; entry: StoredEntry }[];
  deletedDays: DayNumber[];
}

/** The next part of the sweep: up to `PART_DAYS` days holding a value in `key`. */
function nextPart(found: [DayNumber, StoredEntry][], key: string, now: number): SweepPart {
  const part: SweepPart = { entries: [], deletedDays: [] };
  let bytes = 0;
  for (const [day, stored] of found) {
    if (part.entries.length + part.deletedDays.length >= PART_DAYS) break;
    const { [key]: _gone, ...values } = stored.values;
    if (Object.keys(values).length === 0 && stored.note === null) {
      part.deletedDays.push(day);
      bytes += ENTRY_KEY_BYTES;
      continue;
    }
    const entry: StoredEntry = { ...stored, values, updatedAt: now };
    const size = valueSize(entry) + ENTRY_KEY_BYTES;
    if (bytes + size > PART_BYTES && bytes > 0) break;
    part.entries.push({ day, entry });
    bytes += size;
  }
  return part;
}

/**
 * One pass: read the version, then the entries; commit the next part of the sweep, or — when no
 * value is left — the column list without the column. Answers how many values this pass removed,
 * `"done"` after the final commit, or `RETRY` when a concurrent write won.
 */
async function sweepOnce(
  ctx: StoreContext,
  memberId: string,
  key: string,
): Promise<number | "done" | typeof RETRY> {
  const versionEntry = await recordVersionEntry(ctx.kv, memberId);
  const columnsEntry = await readColumnsEntry(ctx.kv, memberId);
  const list = columnsEntry.value ?? [];
  if (!list.some((c) => c.key === key)) {
    throw new AppError("unknown_column", `No column has the key "${key}".`);
  }
  const found = (await allEntries(ctx.kv, memberId)).filter(([, e]) => key in e.values);
  if (found.length === 0) {
    const columns = { entry: columnsEntry, next: list.filter((c) => c.key !== key) };
    const ok = await writeEntries(ctx, memberId, { versionEntry, entries: [], columns });
    return ok ? "done" : RETRY;
  }
  const part = nextPart(found, key, ctx.clock());
  const ok = await writeEntries(ctx, memberId, { versionEntry, ...part });
  return ok ? part.entries.length + part.deletedDays.length : RETRY;
}

/**
 * Removes every value of column `key`, then the column (module comment). Throws `unknown_column`
 * when the member has no such column (also when it was deleted a moment ago).
 */
export async function deleteColumn(
  ctx: StoreContext,
  memberId: string,
  key: string,
): Promise<DeletedColumn> {
  let deletedValues = 0;
  // A lost versionstamp check is retried by the one KV retry (issue #9); a finished part is kept.
  for (;;) {
    const step = await withKvRetry(() => sweepOnce(ctx, memberId, key));
    if (step === "done") return { key, deletedValues };
    deletedValues += step;
  }
}
