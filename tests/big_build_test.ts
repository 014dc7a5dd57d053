import assert from "node:assert/strict";
import { keys } from "../lib/foundation/kv_keys.ts";
import { checkDataFormat } from "../lib/operations/migrations.ts";
import { listColumns, type StoredEntry } from "../lib/record/store.ts";
import {
  buildMembers,
  finishBuild,
  historyOf,
  isThreeYear,
  YEAR_COLUMNS,
} from "../scripts/bench_big_build.ts";
import {
  columnsOf,
  countKeys,
  FIXTURE_NOW,
  FIXTURE_TODAY,
  THREE_YEAR_COLUMNS,
  THREE_YEAR_DAYS,
  threeYearEntries,
  writeRecord,
} from "./_big_instance.ts";
import { openLimitedKv } from "./_kv_limits.ts";
import { countRoundTrips } from "./_kv_round_trips.ts";

Deno.test("buildMembers() writes a bench member in at most 8 commits, with what createColumn and the history give", async () => {
  await using kv = await openLimitedKv();
  await checkDataFormat(kv);
  const counting = countRoundTrips(kv);
  const members = await buildMembers(counting.kv, 22, [...Array(10).keys()]);
  await finishBuild(counting.kv, members);
  const perMember = counting.counts().commits / members.length;
  // 17.3 before (a commit per column, parts of 400 days, a commit for each member's counters)
  assert.ok(perMember <= 8, `${perMember} commits per member`);
  const [year, three] = [await columnsOf(YEAR_COLUMNS), await columnsOf(THREE_YEAR_COLUMNS)];
  for (const [i, m] of members.entries()) {
    assert.equal(m.threeYears, isThreeYear(i));
    assert.deepEqual(await listColumns(kv, m.memberId), m.threeYears ? three : year);
    const days = m.threeYears ? THREE_YEAR_DAYS : 365;
    const written = historyOf(22 + i, days, m.threeYears ? THREE_YEAR_COLUMNS : YEAR_COLUMNS, 0);
    assert.equal(await countKeys(kv, keys.entriesOf(m.memberId)), written.length);
  }
});

Deno.test("writeRecord() packs three years of journal days into commits the strictest KV accepts", async () => {
  await using kv = await openLimitedKv();
  const counting = countRoundTrips(kv);
  const entries = threeYearEntries(19, FIXTURE_TODAY, FIXTURE_NOW);
  const ctx = { kv: counting.kv, clock: () => FIXTURE_NOW };
  await writeRecord(ctx, "journal", await columnsOf(THREE_YEAR_COLUMNS), entries);
  const stored = new Map<number, StoredEntry>();
  for await (const e of kv.list<StoredEntry>({ prefix: keys.entriesOf("journal") })) {
    stored.set(e.key[2] as number, e.value);
  }
  assert.equal(stored.size, entries.length);
  assert.deepEqual(stored.get(entries[500].day), entries[500].entry);
  // over 819,200 bytes in all: more than one commit, yet no more than the bytes need
  const commits = counting.counts().commits;
  assert.ok(commits >= 2 && commits <= 6, `${commits} commits`);
});
