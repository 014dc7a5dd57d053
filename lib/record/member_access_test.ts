import assert from "node:assert/strict";
import { manualClock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { parseDay } from "../foundation/dates.ts";
import { MemberAccess } from "./member_access.ts";
import { listApiTokens, revokeApiToken } from "../accounts/api_tokens.ts";
import { buildMember } from "../../tests/_record_fixtures.ts";
import { countRoundTrips, measure } from "../../tests/_kv_round_trips.ts";

const shape = { days: 30, columns: 2, journals: 0 };
const lastDay = parseDay("2026-11-22")!;

async function versionOf(kv: Deno.Kv, memberId: string): Promise<bigint> {
  return (await kv.get<Deno.KvU64>(keys.recordVersion(memberId))).value?.value ?? 0n;
}

Deno.test("MemberAccess.apiToken(): a token seen before and its member's record version are one getMany", async () => {
  await using kv = await Deno.openKv(":memory:");
  const clock = manualClock(Date.UTC(2026, 10, 22, 12));
  const { memberId, token } = await buildMember(kv, clock, {
    username: "ada",
    shape,
    seed: 1,
    lastDay,
  });
  const counting = countRoundTrips(kv);
  const access = new MemberAccess(counting.kv, clock);
  const first = await access.apiToken(token);
  assert.equal(first?.principal.memberId, memberId);
  assert.equal(first?.record.recordVersion, undefined, "a first sight cannot know the member yet");
  const { result, trips } = await measure(counting, () => access.apiToken(token));
  assert.deepEqual(result?.record, { memberId, recordVersion: await versionOf(kv, memberId) });
  assert.equal(trips.reads, 1, trips.log.join("\n"));
  assert.equal(trips.keysRead, 2, "the token and the record version");
  await access.close();
});

Deno.test("MemberAccess.apiToken(): a write through another KV handle after the token was seen is the version returned", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  try {
    await using kv = await Deno.openKv(path);
    await using other = await Deno.openKv(path);
    const clock = manualClock(Date.UTC(2026, 10, 22, 12));
    const { memberId, token } = await buildMember(kv, clock, {
      username: "bo",
      shape,
      seed: 2,
      lastDay,
    });
    const access = new MemberAccess(kv, clock);
    await access.apiToken(token);
    const before = await versionOf(kv, memberId);
    await other.atomic().sum(keys.recordVersion(memberId), 1n).commit();
    const granted = await access.apiToken(token);
    assert.equal(granted?.record.recordVersion, before + 1n);
    await access.close();
  } finally {
    await Deno.remove(path).catch(() => {});
  }
});

Deno.test("MemberAccess.apiToken(): a revoked token is refused even when its member was seen", async () => {
  await using kv = await Deno.openKv(":memory:");
  const clock = manualClock(Date.UTC(2026, 10, 22, 12));
  const { memberId, token } = await buildMember(kv, clock, {
    username: "cy",
    shape,
    seed: 3,
    lastDay,
  });
  const access = new MemberAccess(kv, clock);
  assert.ok(await access.apiToken(token));
  for (const t of await listApiTokens(kv, memberId)) await revokeApiToken(kv, memberId, t.id);
  assert.equal(await access.apiToken(token), null);
  await access.close();
});

Deno.test("credential resolvers read no record key: lib/record/member_access.ts joins the record version", async () => {
  const resolvers = [
    "../accounts/api_tokens.ts",
    "../accounts/session_resolver.ts",
    "../oauth/grants.ts",
  ];
  const offenders: string[] = [];
  for (const file of resolvers) {
    const text = await Deno.readTextFile(new URL(file, import.meta.url));
    for (const key of ["recordVersion", "entries", "entriesOf", "columns"]) {
      if (text.includes(`keys.${key}(`)) offenders.push(`${file}: keys.${key}`);
    }
  }
  assert.deepEqual(offenders, []);
});
