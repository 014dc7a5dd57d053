import assert from "node:assert/strict";
import {
  buildInstance,
  buildThreeYearMember,
  countKeys,
  THREE_YEAR_COLUMNS,
  THREE_YEAR_DAYS,
  threeYearEntries,
} from "./_big_instance.ts";
import { FIXTURE_TODAY } from "./_big_instance.ts";
import { keys } from "../lib/foundation/kv_keys.ts";
import { openLimitedKv } from "./_kv_limits.ts";

Deno.test("buildThreeYearMember() and buildInstance() write over 10,000 keys in seconds", async () => {
  await using kv = await openLimitedKv();
  const started = performance.now();
  const three = await buildThreeYearMember(kv);
  const instance = await buildInstance(kv, { members: 1000 });
  const seconds = (performance.now() - started) / 1000;
  assert.equal(three.columns.length, 12);
  assert.ok(three.entryDays > 1000 && three.entryDays < THREE_YEAR_DAYS, `${three.entryDays}`);
  assert.equal(await countKeys(kv, keys.entriesOf(three.memberId)), three.entryDays);
  assert.equal(instance.members.length, 1000);
  assert.equal(new Set(instance.members.map((m) => m.memberId)).size, 1000);
  assert.equal(await countKeys(kv, keys.membersAll()), 1001);
  for (const prefix of [["sessions"], ["api_tokens"], ["oauth_grants"], ["oauth_refresh_tokens"]]) {
    assert.equal(await countKeys(kv, prefix), 1001, prefix[0]);
  }
  assert.equal(await countKeys(kv, keys.entriesAll()), three.entryDays + 5000);
  assert.ok(await countKeys(kv, keys.rateLimitPrefix()) >= 3000);
  const total = await countKeys(kv);
  assert.ok(total > 20_000, `${total} keys`);
  // About 2 s on an idle machine; the bound leaves room for a shared one under --parallel load.
  assert.ok(seconds < 120, `built in ${seconds.toFixed(1)} s`);
});

Deno.test("threeYearEntries() is the same for one seed, with gaps, skips and notes", () => {
  const a = threeYearEntries(19, FIXTURE_TODAY, 0);
  assert.deepEqual(threeYearEntries(19, FIXTURE_TODAY, 0), a);
  assert.notDeepEqual(threeYearEntries(20, FIXTURE_TODAY, 0), a);
  assert.equal(a[a.length - 1].day, FIXTURE_TODAY);
  assert.equal(a[0].day, FIXTURE_TODAY - THREE_YEAR_DAYS + 1);
  const values = a.flatMap((e) => Object.values(e.entry.values));
  assert.ok(values.filter((v) => v === "skip").length > 20);
  assert.ok(a.filter((e) => e.entry.note !== null).length > 200);
  const logged = a.map((e) => Object.keys(e.entry.values).length);
  assert.ok(logged.some((n) => n < THREE_YEAR_COLUMNS.length), "some values are forgotten");
  const gaps = a.slice(1).filter((e, i) => e.day - a[i].day > 1).length;
  assert.equal(gaps, 5);
});
