/**
 * Every member's record snapshot written at once (issue #22), run by `admin restore` when the
 * backup is in the current data format. Snapshots are derived and never backed up
 * (`KEY_DURABILITY` marks them volatile, lib/foundation/kv_keys.ts), so without this a restored
 * instance built each member's on their first visit, on the request path: under `bench:big` 18.8
 * ms and 358 keys for a year of 8 columns, where a load with its snapshot is 5 ms and 10 keys, and
 * the 2,000-member load ran at 0.33 of the 20-member one's throughput.
 *
 * Members are listed a page at a time (memory holds one page, not the instance) and loaded a few
 * at a time. Safe beside a running service: a snapshot's commit is checked against the record
 * version it read, so a member who writes meanwhile gets theirs on their next load.
 */

import { keys } from "../foundation/kv_keys.ts";
import type { Member } from "../accounts/accounts.ts";
import { refreshSnapshot } from "../record/member_records.ts";

/** Members listed per page, and snapshots built at once (each waits on KV as much as on the CPU). */
const PAGE = 500;
const CONCURRENCY = 4;

/** What the pass did. */
export interface SnapshotPass {
  members: number;
  written: number;
}

/** Writes every member's snapshot that is missing or stale; `onProgress` after each page. */
export async function writeRecordSnapshots(
  kv: Deno.Kv,
  onProgress: (pass: SnapshotPass) => void = () => {},
): Promise<SnapshotPass> {
  const pass: SnapshotPass = { members: 0, written: 0 };
  let page: string[] = [];
  const flush = async () => {
    let next = 0;
    const worker = async () => {
      while (next < page.length) {
        if (await refreshSnapshot(kv, page[next++])) pass.written++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    pass.members += page.length;
    page = [];
    onProgress(pass);
  };
  for await (const e of kv.list<Member>({ prefix: keys.membersAll() }, { batchSize: PAGE })) {
    page.push(e.value.id);
    if (page.length === PAGE) await flush();
  }
  if (page.length) await flush();
  return pass;
}
