/** `deno task admin` as an operator runs it: a real process on a KV file. */

import assert from "node:assert/strict";
import { registerMember } from "../../lib/accounts/accounts.ts";
import { systemClock } from "../../lib/foundation/clock.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import type { Member } from "../../lib/accounts/accounts.ts";
import { ColumnCreate, createColumn, saveEntry } from "../../lib/record/store.ts";

const SCRIPT = new URL("../../scripts/admin.ts", import.meta.url).pathname;

async function admin(kvPath: string, ...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", SCRIPT, ...args],
    env: { KV_PATH: kvPath },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("deno task admin: --help, tier and coach on the service's KV", async (t) => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite3`;
  try {
    const kv = await Deno.openKv(kvPath);
    const { memberId } = await registerMember(
      { kv, clock: systemClock, passwordIterations: 1000 },
      { username: "alice", password: "a long passphrase" },
    );
    const store = { kv, clock: systemClock };
    await createColumn(
      store,
      memberId,
      ColumnCreate.parse({ key: "steps", label: "Steps", type: "integer" }),
    );
    await saveEntry({
      ctx: store,
      memberId: memberId,
      date: new Date().toISOString().slice(0, 10),
      values: { steps: 4000 },
    });
    kv.close();

    await t.step("--help lists the subcommands", async () => {
      const r = await admin(kvPath, "--help");
      assert.equal(r.code, 0);
      assert.match(r.stdout, /tier <username> paid --until YYYY-MM-DD/);
      assert.match(r.stdout, /coach <username>/);
    });
    await t.step("tier sets paid with an end date, then free", async () => {
      const paid = await admin(kvPath, "tier", "alice", "paid", "--until", "2099-12-31");
      assert.equal(paid.code, 0, paid.stderr);
      assert.match(paid.stdout, /alice: paid until 2099-12-31/);
      const check = await Deno.openKv(kvPath);
      const member = (await check.get<Member>(keys.member(memberId))).value!;
      check.close();
      assert.deepEqual([member.membership, member.paidUntil], ["paid", "2099-12-31"]);
      const free = await admin(kvPath, "tier", "alice", "free");
      assert.match(free.stdout, /alice: free/);
    });
    await t.step("bad input exits non-zero with a message, never a stack trace", async () => {
      for (
        const args of [
          ["tier", "nobody", "free"],
          ["tier", "alice", "paid"],
          ["tier", "alice", "gold"],
          ["coach"],
          ["launch"],
        ]
      ) {
        const r = await admin(kvPath, ...args);
        assert.notEqual(r.code, 0, args.join(" "));
        assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/, args.join(" "));
      }
    });
    await t.step("coach runs now and prints the stored findings", async () => {
      const r = await admin(kvPath, "coach", "alice");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /alice: free depth, \d+ tests, \d+ stored findings/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
