/**
 * `deno task admin members` and `stats` on an instance of a few hundred members (issue #22): the
 * listing comes page by page in username order, each page reading keys in proportion to its own
 * members, and the stats read every key once. Ten thousand members behave the same way, only with
 * more pages (`deno task bench:big` measures them there).
 */

import assert from "node:assert/strict";
import { buildInstance, countKeys } from "../_big_instance.ts";
import { countRoundTrips } from "../_kv_round_trips.ts";
import { admin } from "./_admin.ts";
import { kvStats, listMembersPage } from "../../lib/operations/members.ts";

const MEMBERS = 240;

/** A KV file holding `MEMBERS` fixture members; removed on disposal. */
async function instanceFile() {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite3`;
  const kv = await Deno.openKv(kvPath);
  const { members } = await buildInstance(kv, { members: MEMBERS });
  const names = members.map((m) => m.username).sort();
  return {
    kv,
    kvPath,
    names,
    async [Symbol.asyncDispose]() {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The usernames of `admin members` output rows. */
const rowsOf = (stdout: string) =>
  stdout.split("\n").filter((l) => /^member\d{5} /.test(l)).map((l) => l.split(" ")[0]);

Deno.test("admin members: pages an instance of 240 members and each page reads in proportion to its size", async (t) => {
  await using instance = await instanceFile();
  const { kv, names } = instance;

  await t.step("a page of 20 reads under 20 keys per member it lists", async () => {
    const counting = countRoundTrips(kv);
    const page = await listMembersPage(counting.kv, { limit: 20 });
    assert.deepEqual(page.rows.map((r) => r.username), names.slice(0, 20));
    assert.equal(page.next, names[19]);
    // one claim, one account, columns, 5 entries, a session, a token and its use, a grant
    assert.ok(counting.counts().keysRead <= 20 * 20, `${counting.counts().keysRead} keys read`);
    const all = await countKeys(kv);
    assert.ok(
      counting.counts().keysRead * 10 < all,
      `${counting.counts().keysRead} of ${all} keys`,
    );
  });

  await t.step("the last page says no more follow", async () => {
    const page = await listMembersPage(kv, { after: names[MEMBERS - 3], limit: 20 });
    assert.deepEqual(page.rows.map((r) => r.username), names.slice(MEMBERS - 2));
    assert.equal(page.next, null);
  });

  await t.step("--limit prints one page and the command for the next", async () => {
    const first = await admin(instance.kvPath, "members", "--limit", "25");
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(rowsOf(first.stdout), names.slice(0, 25));
    const more = /^more: deno task admin (members --limit 25 --after (\S+))$/m.exec(first.stdout);
    assert.ok(more, first.stdout);
    assert.equal(more[2], names[24]);
    const second = await admin(instance.kvPath, ...more[1].split(" "));
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(rowsOf(second.stdout), names.slice(25, 50));
    assert.match(second.stdout, /^25 members$/m);
  });

  await t.step("without --limit every member is printed, page after page", async () => {
    const r = await admin(instance.kvPath, "members");
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(rowsOf(r.stdout), names);
    assert.match(r.stdout, new RegExp(`^${MEMBERS} members$`, "m"));
    assert.doesNotMatch(r.stdout, /^more:/m);
  });

  await t.step("a bad --limit is refused in words", async () => {
    for (const args of [["--limit", "0"], ["--limit", "many"], ["--limit"], ["--after"]]) {
      const r = await admin(instance.kvPath, "members", ...args);
      assert.equal(r.code, 1, args.join(" "));
      assert.match(r.stderr, /^error: (--limit takes a whole number|Usage: )/m);
      assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/);
    }
  });
});

Deno.test("admin stats: reads every key of a 240-member instance once", async () => {
  await using instance = await instanceFile();
  const counting = countRoundTrips(instance.kv);
  const stats = await kvStats(counting.kv, instance.kvPath);
  const all = await countKeys(instance.kv);
  assert.equal(stats.members, MEMBERS);
  assert.equal(stats.entries, MEMBERS * 5);
  assert.equal(stats.sessions, MEMBERS);
  assert.equal(stats.apiTokens, MEMBERS);
  assert.equal(stats.oauthGrants, MEMBERS);
  assert.equal(stats.keys, all);
  // the keys once, and the data format
  assert.ok(
    counting.counts().keysRead <= all + 2,
    `${counting.counts().keysRead} reads for ${all} keys`,
  );
});
