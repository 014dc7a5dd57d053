/**
 * Issue #19, "Done when": a backup of the three-year member plus 1,000 members (well over 10,000
 * keys), written to a KV file, restores through `deno task admin restore` (the real script, in a
 * child process) into a fresh KV file with the same export for every member. Also: a backup killed
 * part way leaves its `VACUUM INTO` copy beside the backup, and the next run removes it; a restore
 * killed part way is refused to the service and to another backup, and a rerun finishes it and
 * writes every member's record snapshot (issue #22: they are never backed up).
 */

import assert from "node:assert/strict";
import { buildInstance, buildThreeYearMember, countKeys } from "../_big_instance.ts";
import { limitKv } from "../_kv_limits.ts";
import { manualClock } from "../../lib/foundation/clock.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { SNAPSHOT_COPY } from "../../lib/operations/backup.ts";
import { DATA_FORMAT_VERSION } from "../../lib/operations/migrations.ts";
import { exportRecord } from "../../lib/record/transfer.ts";
import { readRecordBase } from "../../lib/record/member_records.ts";
import { countRoundTrips } from "../_kv_round_trips.ts";
import { admin, spawnAdmin } from "./_admin.ts";

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/** Polls every 5 ms until `ready()` holds, then SIGKILLs `child`; else says how it ended. */
async function killWhen(child: Deno.ChildProcess, ready: () => Promise<boolean>) {
  let ended = false;
  const output = child.output().then((o) => (ended = true, o));
  while (!ended && !await ready()) await new Promise((r) => setTimeout(r, 5));
  if (!ended) child.kill("SIGKILL");
  const o = await output;
  if (o.signal === "SIGKILL") return "killed";
  return `ended first (${o.code}): ${new TextDecoder().decode(o.stdout)}${
    new TextDecoder().decode(o.stderr)
  }`;
}

/** Every member's JSON export from the KV file at `path`, by member id. */
async function exportsOf(path: string, ids: string[]): Promise<Map<string, unknown>> {
  await using kv = await Deno.openKv(path);
  const ctx = { kv, clock: manualClock(Date.UTC(2026, 10, 22, 12)) };
  const out = new Map<string, unknown>();
  for (const id of ids) out.set(id, await exportRecord(ctx, id, "json"));
  return out;
}

Deno.test("backups: deno task admin restores a backup of 1,001 members (three years for one) with the same exports", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const source = `${dir}/source.sqlite3`;
    const ids: string[] = [];
    {
      await using kv = limitKv(await Deno.openKv(source));
      ids.push((await buildThreeYearMember(kv)).memberId);
      ids.push(...(await buildInstance(kv, { members: 1000 })).members.map((m) => m.memberId));
      assert.ok(await countKeys(kv) > 20_000);
      await kv.set(keys.dataFormat(), DATA_FORMAT_VERSION); // as the service stamps a KV it opens
    }
    await Deno.mkdir(`${dir}/backups`);
    const copy = `${dir}/backups/${SNAPSHOT_COPY}`;
    const killed = spawnAdmin(source, "backup", `${dir}/backups/killed.backup`);
    assert.equal(await killWhen(killed, () => exists(copy)), "killed", "while its copy existed");
    assert.ok(await exists(copy), "the killed backup's copy is beside the backup file");
    const file = `${dir}/backups/big.backup`;
    const b = await admin(source, "backup", file);
    assert.equal(b.code, 0, b.stderr);
    const keysInBackup = Number(/: (\d+) keys, data format \d+,/.exec(b.stdout)?.[1]);
    assert.ok(keysInBackup > 20_000, b.stdout);
    assert.equal(await exists(copy), false, "the stale copy was removed, the new one too");

    const target = `${dir}/restored.sqlite3`;
    const marker = async () => {
      if (!await exists(target)) return false;
      await using kv = await Deno.openKv(target);
      return (await kv.get(keys.restoreInProgress())).value !== null;
    };
    assert.equal(await killWhen(spawnAdmin(target, "restore", file), marker), "killed", "part way");
    const small = `${dir}/small.sqlite3`;
    await using smallKv = await Deno.openKv(small);
    await smallKv.set(keys.dataFormat(), 3);
    assert.equal((await admin(small, "backup", `${dir}/small.backup`)).code, 0);
    const other = await admin(target, "restore", `${dir}/small.backup`);
    assert.equal(other.code, 1);
    assert.match(
      other.stderr,
      /^error: This KV holds an unfinished restore of the backup .*big\.backup/m,
    );
    const members = await admin(target, "members");
    assert.equal(members.code, 1);
    assert.match(members.stderr, /^error: This KV holds an unfinished restore/m);
    const r = await admin(target, "restore", file);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^Resumed an interrupted restore of this backup after \d+ of \d+ keys\.$/m,
    );
    // Snapshots are never backed up: the restore writes every member's (#22), so the first load
    // reads the snapshot and not the three-year member's 1,095 entries.
    assert.match(r.stdout, /^Record snapshots written for 1001 of 1001 members in [\d.]+ s\.$/m);
    {
      await using kv = await Deno.openKv(target);
      const counting = countRoundTrips(kv);
      await readRecordBase(counting.kv, ids[0]);
      assert.ok(counting.counts().keysRead <= 20, `${counting.counts().keysRead} keys read`);
    }
    const [before, after] = [await exportsOf(source, ids), await exportsOf(target, ids)];
    assert.equal(after.size, 1001);
    for (const id of ids) assert.deepEqual(after.get(id), before.get(id), id);
    {
      await using kv = await Deno.openKv(target);
      assert.equal((await kv.get(keys.restoreInProgress())).value, null, "the marker is gone");
      assert.equal(await countKeys(kv, keys.membersAll()), 1001);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
