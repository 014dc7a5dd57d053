/**
 * `deno task admin` (issue #14) as an operator runs it: a real admin process on the KV file of a
 * real, running service process, which keeps serving throughout. What each subcommand did is
 * checked through the service's HTTP API or by reading the KV.
 */

import assert from "node:assert/strict";
import { gunzipSync, gzipSync } from "node:zlib";
import { post, proxy, registerWithToken, type TestMember } from "../http/_members.ts";
import { startProcesses } from "../_processes.ts";
import { admin } from "./_admin.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";

/** Every key and value of a KV file (versionstamps aside), KvU64 as its bigint. */
async function dump(kvPath: string): Promise<Map<string, unknown>> {
  const kv = await Deno.openKv(kvPath);
  const out = new Map<string, unknown>();
  for await (const e of kv.list({ prefix: [] })) {
    const value = e.value instanceof Deno.KvU64 ? { u64: e.value.value } : e.value;
    out.set(Deno.inspect(e.key), value);
  }
  kv.close();
  return out;
}

const listColumns = (url: string, token: string) =>
  post(url, "/api/proxy", { action: "listColumns" }, token);

const login = (url: string, username: string, password: string) =>
  post(url, "/api/auth", { action: "login", username, password });

async function seed(url: string, name: string): Promise<TestMember> {
  const m = await registerWithToken(url, name);
  await proxy(url, m, { action: "createColumn", key: "steps", label: "Steps", type: "integer" });
  for (let i = 0; i < 3; i++) {
    const date = new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10);
    await proxy(url, m, { action: "saveEntry", date, values: { steps: 1000 * (i + 1) } });
  }
  return m;
}

const noStack = (text: string) => assert.doesNotMatch(text, /\bat .*\.ts:\d+/);

Deno.test("admin: deno task admin on the KV of a running service", async (t) => {
  await using procs = await startProcesses({ count: 1 });
  const url = procs.urls[0];
  const kvPath = procs.kvPath;
  const ada = await seed(url, "ada");
  const bob = await seed(url, "bob");
  const dir = await Deno.makeTempDir();
  try {
    await t.step("--help lists every subcommand, and each answers --help", async () => {
      const r = await admin(kvPath, "--help");
      assert.equal(r.code, 0);
      const names = [
        "members",
        "reset-password",
        "delete-member",
        "backup",
        "restore",
        "migrate",
        "stats",
        "tier",
        "coach",
      ];
      for (const name of names) {
        assert.match(r.stdout, new RegExp(`^  ${name}\\b`, "m"), name);
        const own = await admin(kvPath, name, "--help");
        assert.equal(own.code, 0, name);
        assert.match(own.stdout, new RegExp(`^Usage: deno task admin ${name}`), name);
      }
    });

    await t.step("stats counts members, entries, tokens and the file size", async () => {
      const r = await admin(kvPath, "stats");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^data format {3}6 \(this version: 6\)$/m);
      assert.match(r.stdout, /^members {7}2$/m);
      assert.match(r.stdout, /^entries {7}6$/m);
      assert.match(r.stdout, /^api tokens {4}2$/m);
      assert.match(r.stdout, /^kv size {7}\d+ bytes$/m);
    });

    await t.step("members lists each with tier and counts", async () => {
      const r = await admin(kvPath, "members");
      assert.equal(r.code, 0, r.stderr);
      const today = new Date().toISOString().slice(0, 10);
      const row = new RegExp(
        `^ada +${today} ${today} free +3 +1 +1 +1 +0$`,
        "m",
      );
      assert.match(r.stdout, row, r.stdout);
      assert.match(r.stdout, /^bob /m);
      assert.match(r.stdout, /^2 members$/m);
    });

    await t.step("backup → restore into a fresh KV gives every key and value back", async () => {
      const file = `${dir}/live.backup`;
      const b = await admin(kvPath, "backup", file);
      assert.equal(b.code, 0, b.stderr);
      assert.match(b.stdout, /keys, data format 6, sha256 [0-9a-f]{64}/);
      const fresh = `${dir}/restored.sqlite3`;
      const r = await admin(fresh, "restore", file);
      assert.equal(r.code, 0, r.stderr);
      const [live, restored] = [await dump(kvPath), await dump(fresh)];
      // The service may write its own bookkeeping after the backup (health probes, rate-limit
      // counters, batched token stamps, coach schedule), and the restore writes each member's
      // record snapshot afresh from the entries (#22: derived, so it may fold the changed days the
      // live one still lists); every other key, the entries among them, must be equal both ways.
      const bookkeeping =
        /^\[ "(rate_limit|health_probe|api_token_last_used|coach_|record_snapshot|record_changes)/;
      for (const [key, value] of live) {
        if (!bookkeeping.test(key)) assert.deepEqual(restored.get(key), value, key);
      }
      for (const key of restored.keys()) {
        if (!bookkeeping.test(key)) assert.ok(live.has(key), key);
      }
      assert.ok(restored.size >= 20, `${restored.size} keys`);
      const again = await admin(fresh, "restore", file);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /^error: The target KV is not empty/m);
    });

    await t.step("a tampered or newer-format backup is refused, nothing restored", async () => {
      const file = `${dir}/live.backup`;
      const plain = gunzipSync(await Deno.readFile(file));
      const cases: [string, Uint8Array, RegExp][] = [];
      const flipped = plain.slice();
      flipped[Math.floor(flipped.length / 2)] ^= 0xff; // inside the body
      cases.push(["body", gzipSync(flipped), /checksum does not match .*: the file is damaged/]);
      const newer = new TextEncoder().encode(
        new TextDecoder().decode(plain.subarray(0, 11)).replace(/^RTBACKUP \d/, "RTBACKUP 9"),
      );
      const bumped = new Uint8Array(plain);
      bumped.set(newer);
      cases.push(["format", gzipSync(bumped), /format 9, newer than this version reads \(2\)/]);
      const raw = await Deno.readFile(file);
      raw[raw.length - 20] ^= 0xff;
      cases.push(["gzip", raw, /damaged or not a backup/]);
      for (const [name, bytes, message] of cases) {
        await Deno.writeFile(`${dir}/${name}.backup`, bytes);
        const target = `${dir}/${name}.sqlite3`;
        const r = await admin(target, "restore", `${dir}/${name}.backup`);
        assert.equal(r.code, 1, name);
        assert.match(r.stderr, message, name);
        noStack(r.stderr);
        assert.equal((await dump(target)).size, 0, `${name}: nothing written`);
      }
    });

    await t.step("reset-password: a one-time password, every session and token ended", async () => {
      assert.equal((await listColumns(url, ada.token)).status, 200, "the token works before");
      const r = await admin(kvPath, "reset-password", "ada");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^ada: every session, API token and connected app is ended\./m);
      const password = /^(reset-\S+)$/m.exec(r.stdout)?.[1];
      assert.ok(password, r.stdout);
      const old = await post(url, "/api/auth", { action: "session" }, ada.sessionToken);
      assert.equal(old.status, 401, "the old session is refused");
      assert.equal((await listColumns(url, ada.token)).status, 401, "the API token is refused");
      assert.equal((await login(url, "ada", "a long passphrase")).status, 401);
      assert.equal((await login(url, "ada", password)).status, 200);
    });

    await t.step(
      "reset-password --keep-tokens: sessions end, the API token keeps working",
      async () => {
        const r = await admin(kvPath, "reset-password", "bob", "--keep-tokens");
        assert.equal(r.code, 0, r.stderr);
        assert.match(
          r.stdout,
          /^bob: every session is signed out; API tokens and connected apps are kept\./m,
        );
        const old = await post(url, "/api/auth", { action: "session" }, bob.sessionToken);
        assert.equal(old.status, 401, "the old session is refused");
        assert.equal((await listColumns(url, bob.token)).status, 200, "the API token still works");
      },
    );

    await t.step("migrate on a current KV changes nothing", async () => {
      const r = await admin(kvPath, "migrate");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Data format 6: up to date\.$/m);
    });

    await t.step("delete-member: the member's own deletion; the service stays up", async () => {
      const kv = await Deno.openKv(kvPath);
      const bobId = (await kv.get<string>(keys.username("bob"))).value!;
      kv.close();
      const r = await admin(kvPath, "delete-member", "bob");
      assert.equal(r.code, 0, r.stderr);
      const left = [...(await dump(kvPath)).entries()].filter(([k, v]) =>
        `${k} ${Deno.inspect(v)}`.includes(bobId) || k.includes('"bob"')
      );
      assert.deepEqual(left, []);
      assert.equal((await login(url, "bob", "a long passphrase")).status, 401);
      const gone = await post(url, "/api/proxy", { action: "getProfile" }, bob.token);
      assert.equal(gone.status, 401);
      const health = await post(url, "/api/proxy", { action: "healthCheck" });
      assert.equal(health.status, 200);
    });

    await t.step("bad input: a message and exit 1 or 2, never a stack trace", async () => {
      for (
        const args of [
          ["reset-password"],
          ["reset-password", "nobody"],
          ["delete-member", "nobody"],
          ["backup"],
          ["backup", `${dir}/no-such-folder/x.backup`],
          ["restore", `${dir}/missing.backup`],
          ["stats", "extra"],
        ]
      ) {
        const r = await admin(kvPath, ...args);
        assert.ok(r.code === 1 || r.code === 2, `${args.join(" ")}: ${r.code}`);
        assert.match(r.stderr, /^error: /m, args.join(" "));
        noStack(r.stderr);
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
