/**
 * Four real service processes on one KV file (issue #9): a revocation or a write through one is
 * seen by the very next request at every other; contention is never a 5xx.
 */

import assert from "node:assert/strict";
import { kvModeName, kvModes, type Processes, startProcesses } from "../_processes.ts";
import { post, registerWithToken } from "../http/_members.ts";
import {
  accessTokenFor,
  callTool,
  codeFor,
  grantTokensFor,
  newPkce,
  PASSWORD,
  registerClient,
  signUpMember,
  tokenRequest,
} from "../http/_oauth.ts";

const REDIRECT_URI = "http://127.0.0.1:9/callback";

async function login(url: string, username: string, password = PASSWORD): Promise<string> {
  const res = await post(url, "/api/auth", { action: "login", username, password });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.sessionToken as string;
}

/** The status of a `session` call with `sessionToken` at `url`. */
async function sessionStatus(url: string, sessionToken: string): Promise<number> {
  return (await post(url, "/api/auth", { action: "session" }, sessionToken)).status;
}

/** A page GET with the session cookie: its status and where it redirects. */
async function page(url: string, path: string, sessionToken: string) {
  const res = await fetch(url + path, {
    headers: { cookie: `rt_session=${sessionToken}` },
    redirect: "manual",
  });
  const html = await res.text();
  return { status: res.status, location: res.headers.get("location") ?? "", html };
}

/** Tool-call statuses of each access token at each URL, as `"<url> <token index> <status>"`. */
async function toolStatuses(urls: string[], tokens: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const url of urls) {
    for (const [i, token] of tokens.entries()) {
      out.push(`${url} ${i} ${(await callTool(url, token)).status}`);
    }
  }
  return out;
}

const allAre = (urls: string[], count: number, status: number) =>
  urls.flatMap((url) => Array.from({ length: count }, (_, i) => `${url} ${i} ${status}`));

/** Every key and value in the processes' KV that mentions one of `needles`. */
async function mentions(procs: Processes, needles: string[]): Promise<string[]> {
  const kv = await procs.openKv();
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

// Issue #21: the same steps on a KV file and, through Deno's real KV Connect client, on a remote KV
// at 0 and 10 ms per round trip (about 20 s each here). `TEST_KV=remote:<ms>` runs one mode.
const MODES = kvModes(["file", { latencyMs: 0 }, { latencyMs: 10 }]);

for (const kv of MODES) {
  Deno.test(`instances: four processes on ${kvModeName(kv)}`, async (t) => {
    // The KV file is ours, so it can still be read once the processes have stopped.
    const dir = await Deno.makeTempDir({ prefix: "rt-instances-" });
    await using procs = await startProcesses({
      kv,
      count: 4,
      kvPath: `${dir}/kv.sqlite3`,
    });
    const [a, ...others] = procs.urls;
    /** Checked once every process has stopped: nothing of these may be left in the KV. */
    const gone: string[] = [];
    const revokedTokenIds: string[] = [];

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
        revokedTokenIds.push(m.tokenId);
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
      "POST /signout (the page's form) on A → B, C and D's pages send to /signin",
      async () => {
        const member = await signUpMember(a, "mp-pages");
        for (const url of others) {
          assert.equal((await page(url, "/app", member.sessionToken)).status, 200);
        }
        const out = await fetch(`${a}/signout`, {
          method: "POST",
          headers: {
            cookie: member.cookie,
            Origin: a,
            "Content-Type": "application/x-www-form-urlencoded",
          },
          body: "",
          redirect: "manual",
        });
        await out.body?.cancel();
        assert.equal(out.status, 303);
        for (const url of others) {
          for (const path of ["/app", "/app/history", "/app/insights", "/app/settings"]) {
            const res = await page(url, path, member.sessionToken);
            assert.equal(res.status, 303, `${url}${path}`);
            assert.match(res.location, /^\/signin\?next=/);
          }
        }
      },
    );

    await t.step(
      "OAuth across processes: code from A redeemed at B; a replayed refresh token at A → every token refused on B, C, D",
      async () => {
        const member = await signUpMember(a, "mp-refresh");
        const clientId = await registerClient(a, [REDIRECT_URI]);
        const pkce = newPkce();
        const code = await codeFor(a, member, clientId, REDIRECT_URI, pkce.challenge);
        const first = await tokenRequest(others[0], {
          grant_type: "authorization_code",
          code,
          code_verifier: pkce.verifier,
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
        });
        assert.equal(first.status, 200, JSON.stringify(first.body));
        const rotated = await tokenRequest(others[1], {
          grant_type: "refresh_token",
          refresh_token: first.body.refresh_token as string,
          client_id: clientId,
        });
        assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
        const access = [first.body.access_token as string, rotated.body.access_token as string];
        assert.deepEqual(await toolStatuses(others, access), allAre(others, 2, 200));
        // OAuth 2.1 §4.3.1: the rotated-out refresh token presented again revokes the grant.
        const replay = await tokenRequest(a, {
          grant_type: "refresh_token",
          refresh_token: first.body.refresh_token as string,
          client_id: clientId,
        });
        assert.equal(replay.status, 400);
        assert.equal(replay.body.error, "invalid_grant");
        assert.deepEqual(await toolStatuses(others, access), allAre(others, 2, 401));
        const newest = await tokenRequest(others[2], {
          grant_type: "refresh_token",
          refresh_token: rotated.body.refresh_token as string,
          client_id: clientId,
        });
        assert.equal(newest.status, 400, "the newest refresh token died with the grant");
      },
    );

    await t.step(
      "OAuth: an authorization code replayed at C → the tokens it gave are refused on A, B, D",
      async () => {
        const member = await signUpMember(a, "mp-replay");
        const clientId = await registerClient(others[1], [REDIRECT_URI]);
        const pkce = newPkce();
        const code = await codeFor(a, member, clientId, REDIRECT_URI, pkce.challenge);
        const exchange = {
          grant_type: "authorization_code",
          code,
          code_verifier: pkce.verifier,
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
        };
        const first = await tokenRequest(others[0], exchange);
        assert.equal(first.status, 200, JSON.stringify(first.body));
        const access = [first.body.access_token as string];
        const rest = [a, others[0], others[2]];
        assert.deepEqual(await toolStatuses(rest, access), allAre(rest, 1, 200));
        // RFC 6749 §4.1.2: a code used twice is refused and its tokens revoked.
        const again = await tokenRequest(others[1], exchange);
        assert.equal(again.status, 400);
        assert.deepEqual(await toolStatuses(rest, access), allAre(rest, 1, 401));
      },
    );

    await t.step(
      "POST /api/proxy revokeGrant {clientId} on A → both of that app's grants refused on B, C, D",
      async () => {
        const member = await signUpMember(a, "mp-client");
        const clientId = await registerClient(a, [REDIRECT_URI]);
        const flow = { member, clientId, redirectUri: REDIRECT_URI };
        const grants = [await grantTokensFor(a, flow), await grantTokensFor(a, flow)];
        const access = grants.map((g) => g.access_token);
        assert.deepEqual(await toolStatuses(others, access), allAre(others, 2, 200));
        const res = await post(
          a,
          "/api/proxy",
          { action: "revokeGrant", clientId },
          member.sessionToken,
        );
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.revoked, 2);
        assert.deepEqual(await toolStatuses(others, access), allAre(others, 2, 401));
        const refresh = await tokenRequest(others[0], {
          grant_type: "refresh_token",
          refresh_token: grants[1].refresh_token,
          client_id: clientId,
        });
        assert.equal(refresh.status, 400);
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
        // (Before #13's audit the column type was "count", which does not exist: both writes were
        // refused unseen, so the deletion had no record to delete.)
        const column = await post(a, "/api/proxy", {
          action: "createColumn",
          key: "steps",
          label: "Steps",
          type: "integer",
        }, m.sessionToken);
        assert.equal(column.status, 200, JSON.stringify(column.body));
        const entry = await post(a, "/api/proxy", {
          action: "saveEntry",
          date: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
          values: { steps: 9000 },
          note: "gone-note",
        }, m.sessionToken);
        assert.equal(entry.status, 200, JSON.stringify(entry.body));
        for (const url of others) {
          assert.equal((await callTool(url, token.body.token as string)).status, 200);
          assert.equal((await callTool(url, access)).status, 200);
          // B, C and D now hold the record in their caches; the page shows it.
          const history = await page(url, "/app/history?column=steps", second);
          assert.equal(history.status, 200);
          assert.match(history.html, /gone-note/);
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
          for (const path of ["/app", "/app/history?column=steps", "/app/settings"]) {
            const res = await page(url, path, second);
            assert.equal(res.status, 303, `${url}${path}`);
            assert.match(res.location, /^\/signin/);
          }
        }
        const relogin = await post(others[1], "/api/auth", {
          action: "login",
          username: "mp-gone",
          password: PASSWORD,
        });
        assert.equal(relogin.status, 401);
        assert.deepEqual(await mentions(procs, [member.memberId, "mp-gone"]), []);
        gone.push(member.memberId);
        // The name is free again, and whoever takes it next starts from an empty record everywhere.
        const heir = await registerWithToken(others[0], "mp-gone");
        // The scan can fail: it finds a live member (on a remote KV it reads through Deno's client).
        assert.notDeepEqual(await mentions(procs, ["mp-gone"]), []);
        for (const url of procs.urls) {
          const cols = await callTool(url, heir.token, "list_columns");
          const sc = (cols.body.result as { structuredContent: { columns: unknown[] } })
            .structuredContent;
          assert.deepEqual(sc.columns, []);
          const today = await page(url, "/app", heir.sessionToken);
          assert.equal(today.status, 200);
          assert.doesNotMatch(today.html, /Steps/);
        }
      },
    );

    await t.step(
      "documents built once per process agree: one ETag everywhere, and A's validates at B, C, D",
      async () => {
        for (const path of ["/openapi.json", "/.well-known/mcp.json", "/static/styles.css"]) {
          const first = await fetch(a + path);
          await first.body?.cancel();
          const etag = first.headers.get("etag");
          assert.ok(etag, path);
          for (const url of others) {
            const res: Response = await fetch(url + path, { headers: { "If-None-Match": etag! } });
            await res.body?.cancel();
            assert.equal(res.status, 304, `${url}${path}`);
          }
        }
        // The sandbox's synthetic member is generated once per process: the same answer everywhere.
        const answers = new Set<string>();
        for (const url of procs.urls) {
          const res = await post(url, "/api/sandbox", {
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "get_streak", arguments: { metric: "steps" } },
          });
          assert.equal(res.status, 200);
          const sc = {
            ...(res.body.result as { structuredContent: Record<string, unknown> })
              .structuredContent,
            generated_at: null,
          };
          answers.add(JSON.stringify(sc));
        }
        assert.equal(answers.size, 1, [...answers].join("\n"));
      },
    );

    await t.step(
      "after every process stopped (each flushes its batched stamps), nothing names a deleted member or revoked token",
      async () => {
        await procs.stop();
        for (let i = 0; i < procs.urls.length; i++) assert.equal((await procs.status(i)).code, 0);
        assert.deepEqual(await mentions(procs, [...gone, ...revokedTokenIds]), []);
      },
    );

    await t.step("no process logged an internal error", () => {
      for (let i = 0; i < procs.urls.length; i++) {
        assert.doesNotMatch(procs.output(i), /internal error|Uncaught/i, procs.output(i));
      }
    });
    await procs.stop();
    await Deno.remove(dir, { recursive: true });
  });
}
