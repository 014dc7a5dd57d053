/** /api/auth, /api/tokens and /api/proxy over real HTTP: rules, concurrency and bad input (#3). */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { post, proxy, registerWithToken, toolCall } from "./_members.ts";

Deno.test("POST /api/auth", async (t) => {
  await using server = await makeApp();
  const url = server;
  const origin = server.app.deps.config.baseUrl;

  await t.step("register returns a sessionToken and an HttpOnly SameSite=Lax cookie", async () => {
    const res = await server.request("/api/auth", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ action: "register", username: "Carol", password: "tulip-harbour-42" }),
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.match(body.sessionToken, /^rt_ses_/);
    const cookie = res.headers.get("set-cookie")!;
    assert.match(cookie, /rt_session=rt_ses_/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
  });
  await t.step("usernames are unique case-insensitively", async () => {
    const res = await post(url, "/api/auth", {
      action: "register",
      username: "CAROL",
      password: "tulip-harbour-42",
    });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, "username_taken");
  });
  await t.step("passwords must be 8–256 characters", async () => {
    for (const password of ["short", "x".repeat(257)]) {
      const res = await post(url, "/api/auth", { action: "register", username: "dave", password });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, "invalid_request");
    }
  });
  await t.step("login failures do not reveal whether the user exists", async () => {
    const wrong = await post(url, "/api/auth", {
      action: "login",
      username: "carol",
      password: "wrong password",
    });
    const nobody = await post(url, "/api/auth", {
      action: "login",
      username: "nobody-here",
      password: "wrong password",
    });
    assert.equal(wrong.status, 401);
    assert.equal(nobody.status, 401);
    assert.equal(wrong.body.code, "invalid_credentials");
    assert.equal(wrong.body.error, nobody.body.error);
  });
  await t.step("login, session, logout", async () => {
    const login = await post(url, "/api/auth", {
      action: "login",
      username: "carol",
      password: "tulip-harbour-42",
    });
    assert.equal(login.status, 200);
    const token = login.body.sessionToken as string;
    const who = await post(url, "/api/auth", { action: "session" }, token);
    assert.equal(who.status, 200);
    assert.equal(who.body.username, "Carol");
    assert.equal((await post(url, "/api/auth", { action: "logout" }, token)).status, 200);
    const after = await post(url, "/api/auth", { action: "session" }, token);
    assert.equal(after.status, 401);
    assert.equal(after.body.code, "invalid_token");
  });
  await t.step("sessions expire after 30 days", async () => {
    const login = await post(url, "/api/auth", {
      action: "login",
      username: "carol",
      password: "tulip-harbour-42",
    });
    server.clock.advance(30 * 24 * 3600 * 1000 + 1);
    const after = await post(
      url,
      "/api/auth",
      { action: "session" },
      login.body.sessionToken as string,
    );
    assert.equal(after.status, 401);
  });
  await t.step("a cookie session is refused from another origin", async () => {
    const login = await post(url, "/api/auth", {
      action: "login",
      username: "carol",
      password: "tulip-harbour-42",
    });
    const res = await server.request("/api/auth", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Cookie: `rt_session=${login.body.sessionToken}`,
        Origin: "https://evil.example",
      },
      body: '{"action":"session"}',
    });
    assert.equal(res.status, 403);
    const own = await server.request("/api/auth", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Cookie: `rt_session=${login.body.sessionToken}`,
        Origin: origin,
      },
      body: '{"action":"session"}',
    });
    assert.equal(own.status, 200);
    await own.body?.cancel();
    await res.body?.cancel();
  });
});

Deno.test("POST /api/auth changePassword and deleteAccount", async (t) => {
  // More sign-ins than the auth quota (10/min per address) allows one client.
  await using server = await makeApp({ config: { rateLimitMultiplier: 10 } });
  const url = server;
  const m = await registerWithToken(url, "erin");
  const login = async (password: string) =>
    await post(url, "/api/auth", { action: "login", username: "erin", password });
  const other = (await login("a long passphrase")).body.sessionToken as string;
  const session = (token: string) => post(url, "/api/auth", { action: "session" }, token);

  await t.step("changePassword refuses a wrong current password and changes nothing", async () => {
    const res = await post(url, "/api/auth", {
      action: "changePassword",
      currentPassword: "not it at all",
      newPassword: "a new passphrase",
    }, m.sessionToken);
    assert.equal(res.status, 401);
    assert.equal(res.body.code, "invalid_credentials");
    assert.equal((await session(other)).status, 200);
  });
  await t.step("changePassword refuses a too-short new password (400)", async () => {
    const res = await post(url, "/api/auth", {
      action: "changePassword",
      currentPassword: "a long passphrase",
      newPassword: "short",
    }, m.sessionToken);
    assert.equal(res.status, 400);
  });
  await t.step("changePassword ends other sessions, keeps this one and the API token", async () => {
    const res = await post(url, "/api/auth", {
      action: "changePassword",
      currentPassword: "a long passphrase",
      newPassword: "a new passphrase",
    }, m.sessionToken);
    assert.deepEqual(res.body, {
      passwordChanged: true,
      otherSessionsSignedOut: true,
      tokensAndAppsEnded: false,
    });
    assert.equal((await session(other)).status, 401);
    assert.equal((await session(m.sessionToken)).status, 200);
    assert.equal((await login("a long passphrase")).status, 401);
    assert.equal((await login("a new passphrase")).status, 200);
    assert.equal((await post(url, "/api/mcp", toolCall("list_columns"), m.token)).status, 200);
  });
  await t.step("changePassword needs a session, not an API token", async () => {
    const res = await post(url, "/api/auth", {
      action: "changePassword",
      currentPassword: "a new passphrase",
      newPassword: "a third passphrase",
    }, m.token);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "session_required");
  });
  await t.step("deleteAccount refuses a username that does not match", async () => {
    const res = await post(url, "/api/auth", {
      action: "deleteAccount",
      confirmUsername: "erin2",
    }, m.sessionToken);
    assert.equal(res.status, 400);
    assert.equal((await session(m.sessionToken)).status, 200);
  });
  await t.step(
    "deleteAccount removes everything of the member; the name is free again",
    async () => {
      const res = await post(url, "/api/auth", {
        action: "deleteAccount",
        confirmUsername: "ERIN",
      }, m.sessionToken);
      assert.deepEqual(res.body, { deleted: true });
      assert.equal((await session(m.sessionToken)).status, 401);
      assert.equal((await post(url, "/api/mcp", toolCall("list_columns"), m.token)).status, 401);
      const left: unknown[] = [];
      for await (const e of server.kv.list({ prefix: [] })) {
        if (JSON.stringify(e.key).includes(m.username)) left.push(e.key);
      }
      assert.deepEqual(left, []);
      // Looked at after the scan: a failed sign-in counts a guess at the name, existing or not.
      assert.equal((await login("a new passphrase")).status, 401);
      const again = await post(url, "/api/auth", {
        action: "register",
        username: "erin",
        password: "a long passphrase",
      });
      assert.equal(again.status, 201);
    },
  );
});

Deno.test("POST /api/tokens", async (t) => {
  await using server = await makeApp();
  const url = server;
  const m = await registerWithToken(url, "tokenholder");

  await t.step("list never shows the secret", async () => {
    await post(url, "/api/mcp", toolCall("list_columns"), m.token);
    const res = await post(url, "/api/tokens", { action: "list" }, m.sessionToken);
    assert.equal(res.status, 200);
    const [token] = res.body.tokens as Record<string, unknown>[];
    assert.deepEqual(Object.keys(token).sort(), [
      "createdAt",
      "id",
      "lastUsedAt",
      "name",
      "prefixHint",
      "scopes",
    ]);
    assert.ok(!JSON.stringify(res.body).includes(m.token));
    assert.ok(m.token.startsWith(token.prefixHint as string));
    assert.equal(typeof token.lastUsedAt, "string");
  });
  await t.step("unknown scopes are refused", async () => {
    const res = await post(
      url,
      "/api/tokens",
      { action: "create", name: "x", scopes: ["write"] },
      m.sessionToken,
    );
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "invalid_scope");
  });
  await t.step("an API token cannot mint tokens", async () => {
    const res = await post(
      url,
      "/api/tokens",
      { action: "create", name: "x", scopes: ["read"] },
      m.token,
    );
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "session_required");
  });
  await t.step("no credential → 401", async () => {
    const res = await post(url, "/api/tokens", { action: "list" });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, "unauthorized");
  });
  await t.step("a bounded number per member", async () => {
    const results = await Promise.all(
      Array.from(
        { length: 25 },
        (_, i) =>
          post(
            url,
            "/api/tokens",
            { action: "create", name: `t${i}`, scopes: ["read"] },
            m.sessionToken,
          ),
      ),
    );
    const list = await post(url, "/api/tokens", { action: "list" }, m.sessionToken);
    assert.equal((list.body.tokens as unknown[]).length, 20);
    assert.ok(results.some((r) => r.body.code === "too_many_tokens"));
  });
  await t.step("a write through /api/proxy needs a session; an API token only reads", async () => {
    const res = await post(url, "/api/proxy", {
      action: "createColumn",
      key: "x",
      label: "X",
      type: "number",
    }, m.token);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "insufficient_scope");
    assert.equal((await post(url, "/api/proxy", { action: "listColumns" }, m.token)).status, 200);
  });
  await t.step(
    "REST 401s carry a Bearer challenge (RFC 9110 §15.5.2); a refused token adds the error",
    async () => {
      const none = await post(url, "/api/proxy", { action: "listColumns" });
      assert.equal(none.status, 401);
      assert.equal(none.headers.get("www-authenticate"), 'Bearer realm="routine-tracker"');
      const bad = await post(
        url,
        "/api/proxy",
        { action: "listColumns" },
        "rt_ro_not-a-real-token",
      );
      assert.equal(bad.status, 401);
      assert.match(
        bad.headers.get("www-authenticate")!,
        /^Bearer realm="routine-tracker", error="invalid_token", error_description="[^"]+"$/,
      );
      const login = await post(url, "/api/auth", {
        action: "login",
        username: "nobody-here",
        password: "wrong passphrase",
      });
      assert.equal(login.status, 401);
      assert.equal(login.headers.get("www-authenticate"), 'Bearer realm="routine-tracker"');
    },
  );
  await t.step(
    "/api/mcp: no token → 401 challenge without error; bad token → error=invalid_token",
    async () => {
      const none = await post(url, "/api/mcp", toolCall("list_columns"));
      assert.equal(none.status, 401);
      const challenge = none.headers.get("www-authenticate")!;
      assert.match(challenge, /^Bearer realm="routine-tracker-mcp", resource_metadata="/);
      assert.doesNotMatch(challenge, /error=/);
      const bad = await post(url, "/api/mcp", toolCall("list_columns"), "rt_ro_not-a-real-token");
      assert.equal(bad.status, 401);
      assert.match(bad.headers.get("www-authenticate")!, /error="invalid_token"/);
    },
  );
});

Deno.test("concurrency: 50 parallel registrations of one name → one account", async () => {
  await using server = await makeApp();
  const results = await Promise.all(
    Array.from(
      { length: 50 },
      (_, i) =>
        post(server, "/api/auth", {
          action: "register",
          username: i % 2 ? "Racer" : "racer",
          password: "tulip-harbour-42",
        }),
    ),
  );
  // The auth quota (10/min per IP) refuses some with 429; every other response is 201 or 409.
  const created = results.filter((r) => r.status === 201);
  assert.equal(created.length, 1);
  for (const r of results) assert.ok([201, 409, 429].includes(r.status), JSON.stringify(r.body));
});

Deno.test("concurrency: 50 parallel registrations, quota aside, still one account", async () => {
  await using server = await makeApp({ config: { rateLimitMultiplier: 100 } });
  const results = await Promise.all(
    Array.from(
      { length: 50 },
      () =>
        post(server, "/api/auth", {
          action: "register",
          username: "samename",
          password: "tulip-harbour-42",
        }),
    ),
  );
  assert.equal(results.filter((r) => r.status === 201).length, 1);
  assert.equal(results.filter((r) => r.status === 409).length, 49);
});

Deno.test("concurrency: 100 parallel saveEntry calls on distinct days are all readable", async () => {
  await using server = await makeApp();
  const m = await registerWithToken(server, "writer");
  await proxy(server, m, {
    action: "createColumn",
    key: "steps",
    label: "Steps",
    type: "integer",
  });
  const base = Date.UTC(2026, 7, 1);
  const dates = Array.from(
    { length: 100 },
    (_, i) => new Date(base + i * 86_400_000).toISOString().slice(0, 10),
  );
  const results = await Promise.all(
    dates.map((date, i) =>
      post(
        server,
        "/api/proxy",
        { action: "saveEntry", date, values: { steps: 1000 + i } },
        m.sessionToken,
      )
    ),
  );
  assert.deepEqual(results.map((r) => r.status), dates.map(() => 200));
  const read = await proxy(server, m, {
    action: "getEntries",
    start: dates[0],
    end: dates[99],
  });
  assert.deepEqual(
    (read.entries as { date: string; values: { steps: number } }[]).map((
      e,
    ) => [e.date, e.values.steps]),
    dates.map((d, i) => [d, 1000 + i]),
  );
});

Deno.test("accounts: bad input gets a 4xx envelope with a stable code, never a 500", async () => {
  await using server = await makeApp();
  const m = await registerWithToken(server, "fuzzer");
  await proxy(server, m, {
    action: "createColumn",
    key: "mood",
    label: "Mood",
    type: "scale",
    scale_min: 1,
    scale_max: 5,
  });
  const cases: [string, unknown, string, string?][] = [
    ["/api/proxy", "{not json", "invalid_json"],
    ["/api/auth", "{not json", "invalid_json"],
    ["/api/tokens", "[1,2", "invalid_json"],
    ["/api/proxy", { action: "dropTables" }, "unknown_action"],
    ["/api/auth", { action: "hack" }, "invalid_request"],
    ["/api/tokens", { action: "delete" }, "invalid_request"],
    ["/api/proxy", { action: 42 }, "invalid_request"],
    ["/api/proxy", { action: "saveEntry", date: 20260101, values: {} }, "invalid_request"],
    [
      "/api/proxy",
      { action: "saveEntry", date: "2026-02-30", values: { mood: 3 } },
      "invalid_date",
    ],
    [
      "/api/proxy",
      { action: "saveEntry", date: "2099-01-01", values: { mood: 3 } },
      "invalid_date",
    ],
    [
      "/api/proxy",
      { action: "saveEntry", date: "'; DROP TABLE entries; --", values: { mood: 3 } },
      "invalid_date",
    ],
    [
      "/api/proxy",
      { action: "saveEntry", date: "2026-11-01", values: { mood: 9 } },
      "invalid_value",
    ],
    [
      "/api/proxy",
      { action: "saveEntry", date: "2026-11-01", values: { mood: "3" } },
      "invalid_request",
    ],
    ["/api/proxy", {
      action: "saveEntry",
      date: "2026-11-01",
      values: { "<script>alert(1)</script>": 1 },
    }, "unknown_column"],
    [
      "/api/proxy",
      '{"action":"saveEntry","date":"2026-11-01","values":{"mood":1e400}}',
      "invalid_request",
    ],
    [
      "/api/proxy",
      { action: "createColumn", key: "<b>x</b>", label: "x", type: "number" },
      "invalid_request",
    ],
    [
      "/api/proxy",
      { action: "createColumn", key: "x", label: "x", type: "json" },
      "invalid_request",
    ],
    [
      "/api/proxy",
      { action: "createColumn", key: "mood", label: "again", type: "number" },
      "column_exists",
    ],
    [
      "/api/proxy",
      { action: "getEntries", start: "2020-01-01", end: "2026-01-01" },
      "range_too_large",
    ],
    ["/api/proxy", { action: "getEntries", start: "yesterday", end: "2026-01-01" }, "invalid_date"],
    ["/api/proxy", { action: "updateProfile", timezone: "Mars/Olympus_Mons" }, "invalid_request"],
    ["/api/proxy", { action: "callTool", name: "no_such_tool" }, "invalid_request"],
    [
      "/api/proxy",
      { action: "importRecord", csv: "date,mood\n2026-11-01,3\n2026-11-02,7\n" },
      "import_rejected",
    ],
    // A header naming no column creates it (#25); an empty header cell or a file that is not our
    // JSON export is still refused.
    ["/api/proxy", { action: "importRecord", csv: "date,\n2026-11-01,3\n" }, "invalid_request"],
    [
      "/api/proxy",
      { action: "importRecord", format: "routine-tracker-json", json: "{not json" },
      "invalid_request",
    ],
    ["/api/proxy", { action: "exportRecord", format: "xml" }, "invalid_request"],
    ["/api/proxy", { action: "revokeGrant", clientId: "abc" }, "not_found"],
    [
      "/api/proxy",
      { action: "saveEntry", date: "2026-11-01", values: { mood: 3 }, extra: true },
      "invalid_request",
    ],
    ["/api/proxy", "x".repeat(2 * 1024 * 1024), "payload_too_large"],
    [
      "/api/auth",
      { action: "register", username: "x".repeat(10_000), password: "p".repeat(10) },
      "payload_too_large",
    ],
    [
      "/api/auth",
      { action: "register", username: "<script>", password: "tulip-harbour-42" },
      "invalid_request",
    ],
    [
      "/api/auth",
      { action: "login", username: "' OR 1=1 --", password: "tulip-harbour-42" },
      "invalid_credentials",
    ],
  ];
  for (const [path, body, code] of cases) {
    const res = await post(
      server,
      path,
      body,
      path === "/api/auth" ? undefined : m.sessionToken,
    );
    assert.ok(
      res.status >= 400 && res.status < 500,
      `${path} ${JSON.stringify(body).slice(0, 80)} → ${res.status}`,
    );
    assert.equal(
      res.body.code,
      code,
      `${path} ${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(res.body)}`,
    );
    assert.equal(typeof res.body.requestId, "string");
    assert.ok(!JSON.stringify(res.body).includes("    at "), "no stack trace");
  }
  // The rejected import wrote nothing.
  const entries = await proxy(server, m, {
    action: "getEntries",
    start: "2026-11-01",
    end: "2026-11-02",
  });
  assert.deepEqual(entries.entries, []);
});
