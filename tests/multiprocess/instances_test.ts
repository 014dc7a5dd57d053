/**
 * Four real service processes on one KV file (issue #9): a revocation or a write through one is
 * seen by the very next request at every other; contention is never a 5xx.
 */

import assert from "node:assert/strict";
import { startProcesses } from "../_processes.ts";
import { post, registerWithToken } from "../http/_members.ts";
import { accessTokenFor, callTool, PASSWORD, signUpMember } from "../http/_oauth.ts";

async function login(url: string, username: string, password = PASSWORD): Promise<string> {
  const res = await post(url, "/api/auth", { action: "login", username, password });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.sessionToken as string;
}

/** The status of a `session` call with `sessionToken` at `url`. */
async function sessionStatus(url: string, sessionToken: string): Promise<number> {
  return (await post(url, "/api/auth", { action: "session" }, sessionToken)).status;
}

/** Every key and value in the KV file that mentions one of `needles`. */
async function mentions(kvPath: string, needles: string[]): Promise<string[]> {
  const kv = await Deno.openKv(kvPath);
  try {
    const found: string[] = [];
    for await (const e of kv.list({ prefix: [] })) {
      const text = JSON.stringify(e.key) +
        JSON.stringify(e.value, (_k, v) => typeof v === "bigint" ? String(v) : v);
      if (needles.some((n) => text.toLowerCase().includes(n.toLowerCase()))) {
        found.push(JSON.stringify(e.key));
      }
    }
    return found;
  } finally {
    kv.close();
  }
}

Deno.test("four processes on one KV file", async (t) => {
  await using procs = await startProcesses({ count: 4 });
  const [a, ...others] = procs.urls;

  await t.step(
    "POST /api/tokens revoke on A → refused on B, C and D on the next call",
    async () => {
      const m = await registerWithToken(a, "mp-token");
      for (const url of others) assert.equal((await callTool(url, m.token)).status, 200);
      const revoked = await post(
        a,
        "/api/tokens",
        { action: "revoke", id: m.tokenId },
        m.sessionToken,
      );
      assert.equal(revoked.status, 200);
      for (const url of others) assert.equal((await callTool(url, m.token)).status, 401);
    },
  );

  await t.step(
    "POST /api/proxy revokeGrant on A → the OAuth token is refused on B, C, D",
    async () => {
      const member = await signUpMember(a, "mp-oauth");
      const access = await accessTokenFor(a, member);
      for (const url of others) assert.equal((await callTool(url, access)).status, 200);
      const grants = await post(a, "/api/proxy", { action: "listGrants" }, member.sessionToken);
      const grantId = (grants.body.grants as { grantId: string }[])[0].grantId;
      const res = await post(
        a,
        "/api/proxy",
        { action: "revokeGrant", grantId },
        member.sessionToken,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      for (const url of others) assert.equal((await callTool(url, access)).status, 401);
    },
  );

  await t.step("POST /api/auth logout on A → the session is refused on B, C, D", async () => {
    const session = await login(a, "mp-token");
    for (const url of others) assert.equal(await sessionStatus(url, session), 200);
    assert.equal((await post(a, "/api/auth", { action: "logout" }, session)).status, 200);
    for (const url of others) assert.equal(await sessionStatus(url, session), 401);
  });

  await t.step(
    "POST /api/auth changePassword on A → other sessions refused on B, C, D",
    async () => {
      const [mine, other] = [await login(a, "mp-token"), await login(others[0], "mp-token")];
      const res = await post(a, "/api/auth", {
        action: "changePassword",
        currentPassword: PASSWORD,
        newPassword: "another long passphrase",
      }, mine);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      for (const url of others) {
        assert.equal(await sessionStatus(url, other), 401);
        assert.equal(await sessionStatus(url, mine), 200);
      }
      const old = await post(others[1], "/api/auth", {
        action: "login",
        username: "mp-token",
        password: PASSWORD,
      });
      assert.equal(old.status, 401);
      await login(others[2], "mp-token", "another long passphrase");
    },
  );

  await t.step("POST /api/proxy saveEntry on A → B's next tools/call sees it", async () => {
    const m = await registerWithToken(a, "mp-writer");
    const col = await post(a, "/api/proxy", {
      action: "createColumn",
      key: "mood",
      label: "Mood",
      type: "scale",
    }, m.sessionToken);
    assert.equal(col.status, 200, JSON.stringify(col.body));
    const entries = async (url: string) =>
      (await callTool(url, m.token, "get_entries", {})).body as {
        result: {
          structuredContent: { rows: { date: string; values: Record<string, unknown> }[] };
        };
      };
    for (let value = 1; value <= 3; value++) {
      await entries(others[0]); // B has the record cached before the write
      const saved = await post(a, "/api/proxy", {
        action: "saveEntry",
        date: "2026-11-20",
        values: { mood: value },
      }, m.sessionToken);
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      const rows = (await entries(others[0])).result.structuredContent.rows;
      assert.equal(rows.find((r) => r.date === "2026-11-20")?.values.mood, value);
    }
  });

  await t.step(
    "POST /api/tokens: 40 concurrent mints and 40 revocations over A and B",
    async () => {
      const m = await registerWithToken(a, "mp-busy");
      await post(a, "/api/tokens", { action: "revoke", id: m.tokenId }, m.sessionToken);
      const mints = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          post(i % 2 ? others[0] : a, "/api/tokens", {
            action: "create",
            name: `t${i}`,
            scopes: ["read"],
          }, m.sessionToken)),
      );
      assert.deepEqual(
        mints.filter((r) => r.status >= 500).map((r) => r.body),
        [],
      );
      const created = mints.filter((r) => r.status === 201);
      assert.equal(created.length, 20, "the cap of 20 holds and is reached");
      assert.ok(mints.every((r) => r.status === 201 || r.body.code === "too_many_tokens"));
      const listed = await post(a, "/api/tokens", { action: "list" }, m.sessionToken);
      assert.equal((listed.body.tokens as unknown[]).length, 20);
      // Each token revoked twice at once, once through each process: one 200 and one 404.
      const ids = created.map((r) => r.body.id as string);
      const revokes = await Promise.all([...ids, ...ids].map((id, i) =>
        post(
          i < ids.length ? a : others[0],
          "/api/tokens",
          { action: "revoke", id },
          m.sessionToken,
        )
      ));
      assert.deepEqual(revokes.filter((r) => r.status >= 500).map((r) => r.body), []);
      assert.equal(revokes.filter((r) => r.status === 200).length, 20);
      assert.equal(revokes.filter((r) => r.status === 404).length, 20);
      for (const r of created) {
        assert.equal((await callTool(others[1], r.body.token as string)).status, 401);
      }
    },
  );

  await t.step(
    "POST /api/auth deleteAccount on A → every credential refused, nothing left",
    async () => {
      const member = await signUpMember(a, "mp-Gone");
      const m = { sessionToken: member.sessionToken };
      const token = await post(a, "/api/tokens", {
        action: "create",
        name: "doomed",
        scopes: ["read"],
      }, m.sessionToken);
      const access = await accessTokenFor(a, member);
      const second = await login(others[0], "mp-gone");
      await post(a, "/api/proxy", {
        action: "createColumn",
        key: "steps",
        label: "Steps",
        type: "count",
      }, m.sessionToken);
      await post(a, "/api/proxy", {
        action: "saveEntry",
        date: "2026-11-20",
        values: { steps: 9000 },
      }, m.sessionToken);
      for (const url of others) {
        assert.equal((await callTool(url, token.body.token as string)).status, 200);
        assert.equal((await callTool(url, access)).status, 200);
      }
      const wrong = await post(a, "/api/auth", {
        action: "deleteAccount",
        confirmUsername: "someone-else",
      }, m.sessionToken);
      assert.equal(wrong.status, 400);
      const res = await post(a, "/api/auth", {
        action: "deleteAccount",
        confirmUsername: "mp-gone",
      }, m.sessionToken);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      for (const url of others) {
        assert.equal(await sessionStatus(url, m.sessionToken), 401);
        assert.equal(await sessionStatus(url, second), 401);
        assert.equal((await callTool(url, token.body.token as string)).status, 401);
        assert.equal((await callTool(url, access)).status, 401);
      }
      const relogin = await post(others[1], "/api/auth", {
        action: "login",
        username: "mp-gone",
        password: PASSWORD,
      });
      assert.equal(relogin.status, 401);
      assert.deepEqual(await mentions(procs.kvPath, [member.memberId, "mp-gone"]), []);
    },
  );

  await t.step("no process logged an internal error", () => {
    for (let i = 0; i < procs.urls.length; i++) {
      assert.doesNotMatch(procs.output(i), /internal error|Uncaught/i, procs.output(i));
    }
  });
});
