/**
 * The Settings page over real HTTP with a session cookie (issue #11 §6): every section's happy path
 * and errors, CSRF on every POST, the token shown once and then only its hint, a revoked token
 * refused on its very next `/api/mcp` call, connected apps revoked, exports that parse back.
 */

import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { startServer } from "../_helpers.ts";
import { callTool, codeFor, newPkce, registerClient, tokenRequest } from "./_oauth.ts";
import { post } from "./_members.ts";
import {
  assertNamed,
  assertSelector,
  assertText,
  Browser,
  hiddenValue,
  proxyAs,
  signedUpBrowser,
} from "./_web.ts";

Deno.test("GET /app/settings", async (t) => {
  await using server = await startServer();

  await t.step("signed out: to sign-in, then back", async () => {
    const res = await new Browser(server).get("/app/settings");
    assert.equal(res.status, 303);
    assert.equal(res.location, "/signin?next=%2Fapp%2Fsettings");
  });

  await t.step("every section, named controls, the membership link", async () => {
    const w = await signedUpBrowser(server, "sally");
    const { status, html, res } = await w.get("/app/settings");
    assert.equal(status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assertSelector(html, "h1", { count: 1 });
    for (const id of ["profile", "tokens", "connected-apps", "export", "import", "password"]) {
      assertSelector(html, `#${id}`, { count: 1 });
    }
    for (const name of ["Save profile", "Create token", "Import", "Change password"]) {
      assertNamed(html, "form button", name, 1);
    }
    assertNamed(html, 'form button[value="csv"]', "Export CSV", 1);
    assertNamed(html, 'form button[value="json"]', "Export JSON", 1);
    assertNamed(html, "form button", "Delete account", 1);
    assertSelector(html, 'main a[href="/membership"]');
    assertText(html, "at most 512 KB and 4000 rows"); // the import limit is stated
    assertSelector(html, 'option[value="Europe/Paris"]', { count: 1 }); // time zones are offered
  });
});

Deno.test("POST /app/settings/profile", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "pat");
  const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
  const fields = {
    csrf,
    displayName: "Pat Q.",
    timezone: "Europe/Paris",
    dayStartOffsetHours: "4",
    units: "imperial",
  };

  await t.step("saved through updateProfile, 303 with a flash", async () => {
    const res = await w.post("/app/settings/profile", fields);
    assert.equal(res.status, 303);
    assert.equal(res.location, "/app/settings#profile");
    const profile = await proxyAs(w, { action: "getProfile" });
    assert.equal(profile.displayName, "Pat Q.");
    assert.equal(profile.timezone, "Europe/Paris");
    assert.equal(profile.dayStartOffsetHours, 4);
    assert.equal(profile.units, "imperial");
    const page = await w.get("/app/settings");
    assertSelector(page.html, '[role="status"]', { count: 1, text: "Profile saved." });
    assertSelector(page.html, '#f-timezone[value="Europe/Paris"]', { count: 1 });
  });

  await t.step("unknown zone and empty name: 422, messages beside the fields", async () => {
    const res = await w.post("/app/settings/profile", {
      ...fields,
      displayName: " ",
      timezone: "Mars/Olympus_Mons",
    });
    assert.equal(res.status, 422);
    assertSelector(res.html, "#f-displayName-error", {
      count: 1,
      text: /^Enter a display name\./,
    });
    assertSelector(res.html, "#f-timezone-error", {
      count: 1,
      text: /^"Mars\/Olympus_Mons" is not a time zone/,
    });
    const zone = '#f-timezone[aria-invalid="true"][value="Mars/Olympus_Mons"]';
    assertSelector(res.html, zone, { count: 1 });
    assert.equal((await proxyAs(w, { action: "getProfile" })).timezone, "Europe/Paris");
  });

  await t.step("CSRF: another Origin, or no Origin and no form token → 403", async () => {
    const evil = await w.post("/app/settings/profile", fields, { Origin: "https://evil.example" });
    assert.equal(evil.status, 403);
    const { csrf: _csrf, ...noToken } = fields;
    assert.equal((await w.post("/app/settings/profile", noToken, {})).status, 403);
    const withToken = await w.post("/app/settings/profile", { ...fields, units: "metric" }, {});
    assert.equal(withToken.status, 303, "no Origin but the session's form token");
  });
});

Deno.test("POST /app/settings/tokens", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "tom");
  const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
  let token = "";

  await t.step("created, shown once with Copy and the warning", async () => {
    const res = await w.post("/app/settings/tokens", { csrf, name: "Laptop script" });
    assert.equal(res.status, 201);
    assert.equal(res.res.headers.get("cache-control"), "no-store");
    token = /id="new-token" readonly value="(rt_ro_[A-Za-z0-9_-]{43})"/.exec(res.html)?.[1] ?? "";
    assert.ok(token, "the token is in a read-only field");
    // hidden until the island hydrates: without JavaScript it would do nothing (issue #25)
    assertNamed(res.html, '#tokens button[type="button"][hidden]', "Copy", 1);
    assertSelector(res.html, '[role="status"]', { text: "shown only this once" });
    const again = await w.get("/app/settings");
    assert.ok(!again.html.includes(token), "never shown again");
    assertNamed(again.html, "#tokens code", `${token.slice(0, 10)}…`, 1); // the hint is
    assertText(again.html, "Laptop script");
  });

  await t.step("the token reads over MCP", async () => {
    const res = await callTool(server.url, token);
    assert.equal(res.status, 200);
  });

  await t.step("no name: 422 beside the field", async () => {
    const res = await w.post("/app/settings/tokens", { csrf, name: "  " });
    assert.equal(res.status, 422);
    assertSelector(res.html, "#f-name-error", { count: 1, text: /^Give the token a name\./ });
  });

  await t.step(
    "Revoke: a confirm page without JS, then refused on the very next call",
    async () => {
      const list = await proxyAs(w, { action: "listGrants" });
      assert.deepEqual(list.grants, []);
      const tokens = await fetch(`${server.url}/api/tokens`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${w.sessionToken}` },
        body: JSON.stringify({ action: "list" }),
      }).then((r) => r.json());
      const id = tokens.tokens[0].id as string;
      const ask = await w.post("/app/settings/tokens/revoke", { csrf, id, confirmed: "" });
      assert.equal(ask.status, 200);
      assertText(ask.html, "Revoke the token “Laptop script”?");
      assertSelector(ask.html, 'form input[name="confirmed"][value="yes"]', { count: 1 });
      assert.equal((await callTool(server.url, token)).status, 200, "not revoked yet");
      const done = await w.post("/app/settings/tokens/revoke", { csrf, id, confirmed: "yes" });
      assert.equal(done.status, 303);
      assert.equal(done.location, "/app/settings#tokens");
      assert.equal((await callTool(server.url, token)).status, 401);
      const after = (await w.get("/app/settings")).html;
      assertText(after, "You have no API tokens.");
      // the flash names the token (issue #25, defect 7)
      assertSelector(after, '[role="status"]', {
        count: 1,
        text: "The token “Laptop script” was revoked: it is refused from now on.",
      });
    },
  );
});

/** The member's tokens as `/api/tokens` `list` answers. */
async function tokenNames(base: string, w: Browser): Promise<string[]> {
  const res = await fetch(`${base}/api/tokens`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${w.sessionToken}` },
    body: JSON.stringify({ action: "list" }),
  }).then((r) => r.json());
  return (res.tokens as { name: string }[]).map((t) => t.name);
}

Deno.test("POST /app/settings/tokens: the same form twice (a reload) makes one token", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "rena");
  const page = (await w.get("/app/settings")).html;
  const csrf = hiddenValue(page, "csrf");
  const nonce = hiddenValue(page, "nonce");

  await t.step("each page shown carries its own one-time nonce", async () => {
    assert.match(nonce, /^[0-9a-f-]{36}$/);
    assert.notEqual(hiddenValue((await w.get("/app/settings")).html, "nonce"), nonce);
  });

  await t.step("sent again: 409 “already created”, no second token, no secret", async () => {
    const form = { csrf, nonce, name: "Phone script" };
    const first = await w.post("/app/settings/tokens", form);
    assert.equal(first.status, 201);
    assert.notEqual(hiddenValue(first.html, "nonce"), nonce, "the next create gets a new nonce");
    const again = await w.post("/app/settings/tokens", form);
    assert.equal(again.status, 409);
    assertSelector(again.html, '[role="status"]', {
      count: 1,
      text: /^The token “Phone script” was already created by this request; it is shown only once/,
    });
    assertSelector(again.html, "#new-token", { count: 0 });
    assert.deepEqual(await tokenNames(server.url, w), ["Phone script"]);
  });

  await t.step("a new page's form creates the next token", async () => {
    const next = hiddenValue((await w.get("/app/settings")).html, "nonce");
    const res = await w.post("/app/settings/tokens", { csrf, nonce: next, name: "Phone script" });
    assert.equal(res.status, 201);
    assert.equal((await tokenNames(server.url, w)).length, 2);
  });

  await t.step("a nonce that is not one: 422 beside the field, nothing created", async () => {
    const res = await w.post("/app/settings/tokens", { csrf, nonce: "x", name: "Odd" });
    assert.equal(res.status, 422);
    assertSelector(res.html, "#f-name-error", { count: 1, text: /out of date: reload the page/ });
    assert.equal((await tokenNames(server.url, w)).length, 2);
  });
});

Deno.test("POST /api/tokens create with an Idempotency-Key: the replay is refused, not minted", async () => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "ines");
  const send = () =>
    fetch(`${server.url}/api/tokens`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Bearer ${w.sessionToken}`,
        "Idempotency-Key": "create-ci-token-1",
      },
      body: JSON.stringify({ action: "create", name: "CI", scopes: ["read"] }),
    });
  const first = await send();
  assert.equal(first.status, 201);
  const { id } = await first.json();
  const again = await send();
  assert.equal(again.status, 409);
  const body = await again.json();
  assert.equal(body.code, "already_created");
  assert.deepEqual([body.id, body.name], [id, "CI"]);
  assert.ok(!JSON.stringify(body).includes("rt_ro_"), "the secret is never sent again");
  assert.deepEqual(await tokenNames(server.url, w), ["CI"]);
});

Deno.test("POST /app/settings/apps/revoke", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "olga");
  const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
  const redirectUri = "http://127.0.0.1:9/callback";
  const clientId = await registerClient(server.url, [redirectUri]);
  const pkce = newPkce();
  const member = { username: "olga", memberId: "", sessionToken: w.sessionToken, cookie: w.cookie };
  const code = await codeFor(server.url, member, clientId, redirectUri, pkce.challenge);
  const tokens = await tokenRequest(server.url, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: pkce.verifier,
  });
  const access = tokens.body.access_token as string;

  await t.step("the connected app is listed with scopes and dates", async () => {
    const html = (await w.get("/app/settings")).html;
    assertNamed(html, '#connected-apps strong[id^="grant-"]', "Test App", 1);
    assertSelector(html, "#connected-apps", { text: "scopes: read · approved" });
    assert.equal((await callTool(server.url, access)).status, 200);
  });

  await t.step("Revoke: the app is refused at once", async () => {
    const { grants } = await proxyAs(w, { action: "listGrants" });
    const id = grants[0].grantId as string;
    const res = await w.post("/app/settings/apps/revoke", { csrf, id, confirmed: "yes" });
    assert.equal(res.status, 303);
    assert.equal(res.location, "/app/settings#connected-apps");
    assert.equal((await callTool(server.url, access)).status, 401);
    const after = (await w.get("/app/settings")).html;
    assertText(after, "No app is connected.");
    assertSelector(after, '[role="status"]', { count: 1, text: "Test App was disconnected" });
    const gone = await w.post("/app/settings/apps/revoke", { csrf, id, confirmed: "" });
    assert.equal(gone.status, 404);
  });
});

Deno.test("GET /app/settings/export", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "eve");
  await proxyAs(w, { action: "createColumn", key: "steps", label: "Steps", type: "integer" });
  await proxyAs(w, {
    action: "saveEntry",
    date: "2026-11-20",
    values: { steps: 9000 },
    note: 'walked, "far"',
  });

  await t.step("CSV: an attachment that parses back to the entries", async () => {
    const res = await w.get("/app/settings/export?format=csv");
    assert.equal(res.status, 200);
    assert.match(res.res.headers.get("content-type")!, /^text\/csv/);
    assert.match(
      res.res.headers.get("content-disposition")!,
      /^attachment; filename="routine-tracker-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    assert.deepEqual(parse(res.html), [["date", "steps", "note"], [
      "2026-11-20",
      "9000",
      'walked, "far"',
    ]]);
  });

  await t.step("JSON: an attachment with profile, columns and entries", async () => {
    const res = await w.get("/app/settings/export?format=json");
    assert.match(res.res.headers.get("content-disposition")!, /^attachment; .*\.json"$/);
    const body = JSON.parse(res.html);
    assert.equal(body.profile.username, "eve");
    assert.deepEqual(body.columns.map((c: { key: string }) => c.key), ["steps"]);
    assert.deepEqual(body.entries, [{
      date: "2026-11-20",
      values: { steps: 9000 },
      note: 'walked, "far"',
    }]);
  });

  await t.step("signed out: to sign-in", async () => {
    const res = await new Browser(server).get("/app/settings/export?format=csv");
    assert.equal(res.status, 303);
  });
});

Deno.test("POST /app/settings/password", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "paula");
  const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
  const other = await post(server.url, "/api/auth", {
    action: "login",
    username: "paula",
    password: "a long passphrase",
  });

  await t.step("wrong current password, short new one: 422 beside the fields", async () => {
    const wrong = await w.post("/app/settings/password", {
      csrf,
      username: "paula",
      currentPassword: "not it at all",
      newPassword: "another long one",
    });
    assert.equal(wrong.status, 422);
    assertSelector(wrong.html, "#f-currentPassword-error", {
      count: 1,
      text: /^That is not your current password\./,
    });
    const short = await w.post("/app/settings/password", {
      csrf,
      currentPassword: "a long passphrase",
      newPassword: "short",
    });
    assert.equal(short.status, 422);
    assertSelector(short.html, "#f-newPassword-error", { count: 1 });
    assert.equal(
      (await post(
        server.url,
        "/api/auth",
        { action: "session" },
        other.body.sessionToken as string,
      )).status,
      200,
    );
  });

  await t.step("changed: this session stays, every other one is signed out", async () => {
    const res = await w.post("/app/settings/password", {
      csrf,
      currentPassword: "a long passphrase",
      newPassword: "a brand new passphrase",
    });
    assert.equal(res.status, 303);
    assert.equal(res.location, "/app/settings#password");
    assertSelector((await w.get("/app/settings")).html, '[role="status"]', {
      text: "Password changed.",
    });
    assert.equal(
      (await post(
        server.url,
        "/api/auth",
        { action: "session" },
        other.body.sessionToken as string,
      )).status,
      401,
    );
    const old = await post(server.url, "/api/auth", {
      action: "login",
      username: "paula",
      password: "a long passphrase",
    });
    assert.equal(old.status, 401);
    const fresh = await post(server.url, "/api/auth", {
      action: "login",
      username: "paula",
      password: "a brand new passphrase",
    });
    assert.equal(fresh.status, 200);
  });
});

Deno.test("POST /app/settings/delete", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "dora");
  const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
  await proxyAs(w, { action: "createColumn", key: "steps", label: "Steps", type: "integer" });
  await proxyAs(w, { action: "saveEntry", date: "2026-11-20", values: { steps: 5000 } });
  const created = await w.post("/app/settings/tokens", { csrf, name: "script" });
  const token = /id="new-token" readonly value="([^"]+)"/.exec(created.html)![1];
  const session = w.sessionToken;
  const memberId = (await post(server.url, "/api/auth", { action: "session" }, session)).body
    .memberId as string;

  await t.step("the wrong username: 422 beside the field, nothing deleted", async () => {
    const res = await w.post("/app/settings/delete", { csrf, confirmUsername: "someone" });
    assert.equal(res.status, 422);
    assertSelector(res.html, "#f-confirmUsername-error", {
      count: 1,
      text: /^Type your username, dora, to confirm\./,
    });
    assert.equal((await callTool(server.url, token)).status, 200);
  });

  await t.step("deleted: signed out, to the landing page, nothing of the member left", async () => {
    const res = await w.post("/app/settings/delete", { csrf, confirmUsername: "dora" });
    assert.equal(res.status, 303);
    assert.equal(res.location, "/");
    assert.match(
      decodeURIComponent(decodeURIComponent(w.cookies.get("rt_flash") ?? "")),
      /Your account and everything in it were deleted\./,
      "the landing page is left a message",
    );
    const landing = await w.get("/");
    assertSelector(landing.html, '[role="status"]', { // the landing page shows it
      count: 1,
      text: /^Your account and everything in it were deleted\./,
    });
    assert.equal(w.cookies.get("rt_flash"), undefined, "shown once");
    assert.equal(w.cookies.get("rt_session"), undefined, "the session cookie is cleared");
    assert.equal((await post(server.url, "/api/auth", { action: "session" }, session)).status, 401);
    assert.equal((await callTool(server.url, token)).status, 401);
    const left: string[] = [];
    for await (const e of server.kv.list({ prefix: [] })) {
      const text = JSON.stringify(e.key) +
        JSON.stringify(e.value, (_k, v) => typeof v === "bigint" ? String(v) : v);
      if (text.includes(memberId) || text.toLowerCase().includes('"dora"')) {
        left.push(JSON.stringify(e.key));
      }
    }
    assert.deepEqual(left, []);
    // Tried after the scan: a failed sign-in counts a guess at the name, existing or not.
    const login = await post(server.url, "/api/auth", {
      action: "login",
      username: "dora",
      password: "a long passphrase",
    });
    assert.equal(login.status, 401);
    assert.equal((await w.get("/app/settings")).status, 303);
  });
});
