/**
 * Upgrades that migrate (issue #14), from a KV written in the format before versions were stored
 * (tests/fixtures/migration/format0.sqlite3, written by scripts/gen_migration_fixture.ts): the
 * service refuses to start on it, `deno task admin migrate` brings it to the current format, and
 * the service then serves the fixture's member, record and old session. A KV newer than the code
 * is refused by start-up and by the admin commands that write.
 */

import assert from "node:assert/strict";
import { FIXTURE } from "../../scripts/gen_migration_fixture.ts";
import type { Member } from "../../lib/accounts/accounts.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import {
  DATA_FORMAT_VERSION,
  MIGRATIONS,
  readDataFormat,
} from "../../lib/operations/migrations.ts";
import { post } from "../http/_members.ts";
import { startProcesses } from "../_processes.ts";
import { admin } from "./_admin.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** A copy of the fixture in a fresh temp dir (the committed file is never written). */
async function fixtureCopy(): Promise<{ dir: string; kvPath: string }> {
  const dir = await Deno.makeTempDir({ prefix: "rt-migrate-" });
  await Deno.copyFile(FIXTURE.path, `${dir}/kv.sqlite3`);
  return { dir, kvPath: `${dir}/kv.sqlite3` };
}

/** Starts main.ts on `kvPath` and waits for it to exit (it must refuse to start). */
async function refusedStart(kvPath: string): Promise<{ code: number; output: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", MAIN],
    env: { KV_PATH: kvPath, PORT: "0", DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, output: text(out.stdout) + text(out.stderr) };
}

Deno.test("migrations: each step is idempotent on the fixture", async () => {
  const { dir, kvPath } = await fixtureCopy();
  const kv = await Deno.openKv(kvPath);
  try {
    assert.equal(await readDataFormat(kv), 0);
    assert.deepEqual(MIGRATIONS.map((s) => s.to), [1, 2, 3, 4, 5, 6]);
    assert.equal(MIGRATIONS.at(-1)!.to, DATA_FORMAT_VERSION);
    const first = [];
    for (const step of MIGRATIONS) first.push(await step.run(kv));
    assert.deepEqual(
      first,
      [1, 1, 2, 0, 1, 0],
      "one session indexed, one member, two retired keys, no OAuth secret, one coach_due indexed, " +
        "no rate-limit counter (lib/operations/migrations_rate_limit_test.ts has them)",
    );
    const second = [];
    for (const step of MIGRATIONS) second.push(await step.run(kv));
    assert.deepEqual(second, [0, 0, 0, 0, 0, 0], "a second run changes nothing");
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an upgrade from the format-0 fixture: refused start, backup, migrate, serve", async (t) => {
  const { dir, kvPath } = await fixtureCopy();
  try {
    await t.step("start-up refuses the old format and names the commands", async () => {
      const r = await refusedStart(kvPath);
      assert.equal(r.code, 78, r.output);
      assert.match(r.output, /data format 0; this version needs 6/);
      assert.match(r.output, /deno task admin backup <file>`, then `deno task admin migrate/);
      assert.doesNotMatch(r.output, /\bat .*\.ts:\d+/);
    });

    await t.step("commands that need the new format refuse; stats reads it", async () => {
      const reset = await admin(kvPath, "reset-password", FIXTURE.username);
      assert.equal(reset.code, 1);
      assert.match(reset.stderr, /data format 0; run `deno task admin migrate`/);
      const stats = await admin(kvPath, "stats");
      assert.match(stats.stdout, /^data format {3}0 \(this version: 6\)$/m);
      assert.match(stats.stdout, /^entries {7}5$/m);
    });

    await t.step("backup, then migrate: every step reported, then up to date", async () => {
      const backup = await admin(kvPath, "backup", `${dir}/before-upgrade.backup`);
      assert.equal(backup.code, 0, backup.stderr);
      assert.match(backup.stdout, /data format 0,/);
      const r = await admin(kvPath, "migrate");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^step 1: index every session under sessions_by_member \(1 keys/m);
      assert.match(r.stdout, /^step 2: .* \(1 keys changed\)$/m);
      assert.match(r.stdout, /^step 3: delete the retired cache_epoch keys \(2 keys/m);
      assert.match(
        r.stdout,
        /^step 5: index every active member's coach run by due time \(1 keys/m,
      );
      assert.match(r.stdout, /^Data format 0 → 6\.$/m);
      const again = await admin(kvPath, "migrate");
      assert.match(again.stdout, /^Data format 6: up to date\.$/m);
    });

    await t.step("the backup taken before restores as format 0, and migrates", async () => {
      const restored = `${dir}/restored.sqlite3`;
      const r = await admin(restored, "restore", `${dir}/before-upgrade.backup`);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /data format 0\)\.\nThe data is in an older format: run/);
      assert.equal((await refusedStart(restored)).code, 78);
      const m = await admin(restored, "migrate");
      assert.match(m.stdout, /^Data format 0 → 6\.$/m);
    });

    await t.step("the KV is in the current format", async () => {
      const kv = await Deno.openKv(kvPath);
      try {
        assert.equal((await kv.get(keys.dataFormat())).value, DATA_FORMAT_VERSION);
        const id = (await kv.get<string>(keys.username(FIXTURE.username))).value!;
        const member = (await kv.get<Member>(keys.member(id))).value!;
        assert.deepEqual([member.membership, member.paidUntil], ["free", null]);
        let indexed = 0;
        for await (const _ of kv.list({ prefix: keys.sessionsOfMember(id) })) indexed++;
        assert.equal(indexed, 1);
        for (const prefix of keys.retiredPrefixes()) {
          for await (const e of kv.list({ prefix })) assert.fail(`left: ${Deno.inspect(e.key)}`);
        }
      } finally {
        kv.close();
      }
    });

    await using procs = await startProcesses({ count: 1, kvPath });
    const url = procs.urls[0];
    await t.step("the service serves the fixture's record to its old session", async () => {
      const session = await post(url, "/api/auth", { action: "session" }, FIXTURE.sessionToken);
      assert.equal(session.status, 200, JSON.stringify(session.body));
      assert.equal(session.body.username, FIXTURE.username);
      const entries = await post(url, "/api/proxy", {
        action: "getEntries",
        start: FIXTURE.days[0],
        end: FIXTURE.days.at(-1),
      }, FIXTURE.sessionToken);
      assert.equal(entries.status, 200, JSON.stringify(entries.body));
      const got = (entries.body.entries as { values: { steps: number } }[]).map((e) =>
        e.values.steps
      );
      assert.deepEqual(got, FIXTURE.steps);
    });

    await t.step("a password change now ends the pre-index session (step 1)", async () => {
      const login = await post(url, "/api/auth", {
        action: "login",
        username: FIXTURE.username,
        password: FIXTURE.password,
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const changed = await post(url, "/api/auth", {
        action: "changePassword",
        currentPassword: FIXTURE.password,
        newPassword: "a brand new passphrase",
      }, login.body.sessionToken as string);
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const old = await post(url, "/api/auth", { action: "session" }, FIXTURE.sessionToken);
      assert.equal(old.status, 401);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a KV newer than the code: start-up and writing commands refuse, nothing changes", async () => {
  const { dir, kvPath } = await fixtureCopy();
  try {
    const kv = await Deno.openKv(kvPath);
    await kv.set(keys.dataFormat(), DATA_FORMAT_VERSION + 1);
    kv.close();
    const r = await refusedStart(kvPath);
    assert.equal(r.code, 78, r.output);
    assert.match(r.output, /data format 7, newer than this version understands \(6\)/);
    for (const args of [["migrate"], ["tier", FIXTURE.username, "free"]]) {
      const cmd = await admin(kvPath, ...args);
      assert.equal(cmd.code, 1, args.join(" "));
      assert.match(cmd.stderr, /^error: This KV holds data format 7, newer than/m);
    }
    const after = await Deno.openKv(kvPath);
    const id = (await after.get<string>(keys.username(FIXTURE.username))).value!;
    assert.equal((await after.get<Member>(keys.member(id))).value!.membership, undefined);
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
