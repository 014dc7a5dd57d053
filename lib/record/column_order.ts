/**
 * Reordering a member's columns (the Columns page's up/down buttons). The display order is the
 * order of the stored column list; a move rewrites that list in one checked commit with the record
 * version bump every record write carries (lib/record/store.ts `writeEntries`), so a concurrent
 * change makes it retry rather than lose a column.
 */

import { AppError } from "../foundation/errors.ts";
import { RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { readColumnsEntry, recordVersionEntry, type StoreContext, writeEntries } from "./store.ts";
import type { Column } from "./types.ts";

/**
 * Moves column `key` one place up (`-1`) or down (`+1`) among the member's columns; a move past
 * either end changes nothing. Throws `unknown_column`. Returns the new order.
 */
export async function moveColumn(
  ctx: StoreContext,
  memberId: string,
  key: string,
  step: -1 | 1,
): Promise<Column[]> {
  // A lost versionstamp check (a concurrent write) is retried by the one KV retry (issue #9).
  return await withKvRetry(async () => {
    const versionEntry = await recordVersionEntry(ctx.kv, memberId);
    const entry = await readColumnsEntry(ctx.kv, memberId);
    const list = entry.value ?? [];
    const i = list.findIndex((c) => c.key === key);
    if (i < 0) throw new AppError("unknown_column", `No column has the key "${key}".`);
    // Step over archived neighbours, so a move is always visible among the active columns.
    let j = i + step;
    while (j >= 0 && j < list.length && list[j].archived !== list[i].archived) j += step;
    if (j < 0 || j >= list.length) return list;
    const next = [...list];
    [next[i], next[j]] = [next[j], next[i]];
    const columns = { entry, next };
    return (await writeEntries(ctx, memberId, { versionEntry, entries: [], columns }))
      ? next
      : RETRY;
  });
}
