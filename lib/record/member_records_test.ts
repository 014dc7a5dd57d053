import assert from "node:assert/strict";
import { manualClock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { MemberRecords } from "./member_records.ts";
import { FINDING_TTL_DAYS, type StoredFindings } from "./types.ts";
import { openLimitedKv } from "../../tests/_kv_limits.ts";
import { buildMember } from "../../tests/_record_fixtures.ts";
import { parseDay } from "../foundation/dates.ts";

const DAY_MS = 86_400_000;

Deno.test("MemberRecords.load(): a cached record drops a finding the moment it turns 90 days old", async () => {
  await using kv = await openLimitedKv();
  const clock = manualClock();
  const memberId = "member-1";
  const createdAt = new Date(clock() - FINDING_TTL_DAYS * DAY_MS + 3_600_000).toISOString();
  const findings = {
    analysed: null,
    insights: [{ id: "ins_old", created_at: createdAt, type: "record" }],
    dismissed: [],
    lease: null,
    runs: 1,
  } as unknown as StoredFindings;
  await kv.atomic()
    .set(keys.member(memberId), { id: memberId, timezone: "UTC", dayStartOffsetHours: 0 })
    .set(keys.coachFindings(memberId), findings)
    .set(keys.recordVersion(memberId), new Deno.KvU64(1n))
    .commit();
  const records = new MemberRecords(kv, clock);
  assert.deepEqual((await records.load(memberId)).record.insights.map((i) => i.id), ["ins_old"]);
  // Two hours later nothing was written, so the record stays cached (same version): the finding
  // must go all the same, as it does on an instance that reads the record afresh.
  clock.advance(2 * 3_600_000);
  assert.deepEqual((await records.load(memberId)).record.insights, []);
});

Deno.test("MemberRecords.load(): 1 MiB holds fifty one-year records of 8 columns", async () => {
  await using kv = await openLimitedKv();
  const clock = manualClock(Date.UTC(2026, 10, 22, 12));
  const lastDay = parseDay("2026-11-22")!;
  const shape = { days: 365, columns: 8, journals: 0 };
  const ids: string[] = [];
  for (let i = 0; i < 50; i++) {
    ids.push(
      (await buildMember(kv, clock, { username: `m${i}`, shape, seed: i, lastDay })).memberId,
    );
  }
  const records = new MemberRecords(kv, clock, { maxBytes: 1024 * 1024 });
  for (const id of ids) await records.load(id);
  // Kept as Maps they were ~125 kB each (a hash-table slot of 28 bytes a day): eight fitted; as
  // arrays of 8-byte slots ~30 kB: 34. Packed (a code byte a day and one or two bytes a number),
  // ~18 kB. tests/process/cache_bounds_test.ts holds the estimate to the memory really taken.
  const held = ids.filter((id) => records.holds(id)).length;
  assert.equal(held, 50, `${held} of 50 held, ${records.held.bytes} bytes estimated`);
});
