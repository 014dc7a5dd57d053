import assert from "node:assert/strict";
import { manualClock } from "../foundation/clock.ts";
import { formatDay, parseDay } from "../foundation/dates.ts";
import { keys } from "../foundation/kv_keys.ts";
import { MemberRecords, readRecordBase } from "./member_records.ts";
import { buildSeries } from "./day_series.ts";
import {
  allEntries,
  deleteEntry,
  recordVersionEntry,
  saveEntry,
  skipDay,
  writeEntries,
} from "./store.ts";
import { FOLD_AFTER, MAX_CHANGES, type RecordChanges } from "./record_snapshot.ts";
import { openLimitedKv } from "../../tests/_kv_limits.ts";
import { countRoundTrips } from "../../tests/_kv_round_trips.ts";
import { buildMember, THREE_YEARS } from "../../tests/_record_fixtures.ts";
import { mulberry32 } from "../sandbox/synthetic_member.ts";

const NOW = Date.UTC(2026, 10, 22, 12);
const LAST_DAY = parseDay("2026-11-22")!;

/** The record's days and notes as the entries hold them, read one entry a day (the old load). */
async function fromEntries(kv: Deno.Kv, memberId: string, columnKeys: string[]) {
  const entries = await allEntries(kv, memberId);
  const values = buildSeries(columnKeys, entries.map(([day, e]) => [day, e.values]));
  const notes = new Map(entries.filter(([, e]) => e.note).map(([day, e]) => [day, e.note!]));
  return { values: plain(values), notes };
}

/** Series as plain [day, value] lists, comparable whether a column is dense or a Map. */
function plain(values: ReadonlyMap<string, ReadonlyMap<number, unknown>>) {
  return new Map([...values].map(([key, series]) => [key, [...series]]));
}

Deno.test("readRecordBase(): a cold three-year record after two saves reads its snapshot and the two days, not every entry", async () => {
  await using kv = await openLimitedKv();
  const clock = manualClock(NOW);
  const { memberId } = await buildMember(kv, clock, {
    username: "packed",
    shape: THREE_YEARS,
    seed: 7,
    lastDay: LAST_DAY,
  });
  await new MemberRecords(kv, clock).load(memberId); // the first load ever stores the snapshot
  const ctx = { kv, clock };
  for (const date of ["2026-11-21", "2026-11-22"]) {
    await saveEntry({ ctx, memberId, date, values: { c0: 4321 }, note: `saved ${date}` });
  }
  const counting = countRoundTrips(kv);
  const base = await readRecordBase(counting.kv, memberId);
  const { keysRead, sequential, log } = counting.counts();
  // Read one entry a day it was 1,095 keys.
  assert.ok(keysRead <= 20, `${keysRead} keys read:\n${log.join("\n")}`);
  assert.ok(sequential <= 2, log.join("\n"));
  assert.equal(base.values.get("c0")?.get(LAST_DAY), 4321);
  assert.equal(base.notes.get(LAST_DAY - 1), "saved 2026-11-21");
  const columnKeys = base.columns.map((c) => c.key);
  const truth = await fromEntries(kv, memberId, columnKeys);
  assert.deepEqual(plain(base.values), truth.values);
  assert.deepEqual(new Map(base.notes), truth.notes);
});

Deno.test("readRecordBase(): through saves, skips, deletions, imports and folds, a load is the record the entries hold", async () => {
  await using kv = await openLimitedKv();
  const clock = manualClock(NOW);
  const { memberId } = await buildMember(kv, clock, {
    username: "churn",
    shape: { days: 400, columns: 6, journals: 0.3 },
    seed: 3,
    lastDay: LAST_DAY,
  });
  const ctx = { kv, clock };
  const next = mulberry32(11);
  const dateOf = () => formatDay(LAST_DAY - Math.floor(next() * 500));
  const columnKeys = ["c0", "c1", "c2", "c3", "c4", "c5"];
  let snapshotsSeen = 0;
  for (let step = 0; step < 300; step++) {
    const u = next();
    if (u < 0.5) {
      const values = { c0: Math.round(next() * 100), c2: next() < 0.5, c1: null };
      await saveEntry({ ctx, memberId, date: dateOf(), values, note: next() < 0.3 ? "η" : null });
    } else if (u < 0.65) await skipDay({ ctx, memberId, date: dateOf(), columnKeys: ["c3"] });
    else if (u < 0.8) await deleteEntry(ctx, memberId, dateOf());
    else if (u < 0.83) {
      const versionEntry = await recordVersionEntry(kv, memberId);
      const day = parseDay(dateOf())!;
      const entry = { values: { c4: step }, note: `import ${step}`, updatedAt: clock() };
      await writeEntries(ctx, memberId, { versionEntry, entries: [{ day, entry }] });
    }
    if (step % 7 !== 0) continue;
    const base = await readRecordBase(kv, memberId);
    const truth = await fromEntries(kv, memberId, columnKeys);
    assert.deepEqual(plain(base.values), truth.values, `step ${step}`);
    assert.deepEqual(new Map(base.notes), truth.notes, `step ${step}`);
    if ((await kv.get(keys.recordSnapshot(memberId, 0))).value) snapshotsSeen++;
    const changed = (await kv.get<RecordChanges>(keys.recordChanges(memberId))).value?.days ?? [];
    assert.ok(changed === "many" || changed.length <= FOLD_AFTER, `step ${step}: ${changed}`);
  }
  assert.ok(snapshotsSeen > 30, `${snapshotsSeen} loads found a snapshot`);
});

Deno.test("readRecordBase(): more changed days than the list keeps makes the next load read every entry and fold them", async () => {
  await using kv = await openLimitedKv();
  const clock = manualClock(NOW);
  const { memberId } = await buildMember(kv, clock, {
    username: "many",
    shape: { days: 300, columns: 2, journals: 0 },
    seed: 5,
    lastDay: LAST_DAY,
  });
  await readRecordBase(kv, memberId);
  const ctx = { kv, clock };
  for (let i = 0; i <= MAX_CHANGES; i++) {
    await saveEntry({ ctx, memberId, date: formatDay(LAST_DAY - i), values: { c1: i } });
  }
  assert.equal((await kv.get<RecordChanges>(keys.recordChanges(memberId))).value?.days, "many");
  const base = await readRecordBase(kv, memberId);
  assert.equal(base.values.get("c1")?.get(LAST_DAY - MAX_CHANGES), MAX_CHANGES);
  assert.equal((await kv.get(keys.recordChanges(memberId))).value, null);
  const truth = await fromEntries(kv, memberId, ["c0", "c1"]);
  assert.deepEqual(plain((await readRecordBase(kv, memberId)).values), truth.values);
});

Deno.test("readRecordBase(): an entry written without its change listed (the release before, mid-upgrade) is read, not the snapshot's", async () => {
  await using kv = await openLimitedKv();
  const clock = manualClock(NOW);
  const { memberId } = await buildMember(kv, clock, {
    username: "upgrade",
    shape: { days: 200, columns: 2, journals: 0 },
    seed: 9,
    lastDay: LAST_DAY,
  });
  await readRecordBase(kv, memberId); // the snapshot is stored
  assert.ok((await kv.get(keys.recordSnapshot(memberId, 0))).value);
  // What saveEntry committed before this change: the entry and the version bump, nothing else.
  const entry = { values: { c0: 777 }, note: "old release", updatedAt: clock() };
  await kv.atomic().set(keys.entry(memberId, LAST_DAY - 3), entry)
    .sum(keys.recordVersion(memberId), 1n).commit();
  const base = await readRecordBase(kv, memberId);
  assert.equal(base.values.get("c0")?.get(LAST_DAY - 3), 777);
  assert.equal(base.notes.get(LAST_DAY - 3), "old release");
  // and the snapshot rebuilt then serves it too
  assert.equal((await readRecordBase(kv, memberId)).values.get("c0")?.get(LAST_DAY - 3), 777);
});
