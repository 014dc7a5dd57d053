/**
 * Password rules and the end of credentials (issue #19): common passwords are refused at sign-up
 * and password change, on the pages and the API; the password form's "also end every API token
 * and connected app" (checked by default, works without JavaScript) and its REST twin.
 */

import assert from "node:assert/strict";
import { startServer, type TestServer } from "../_helpers.ts";
import { accessTokenFor, type BrowserMember, callTool, PASSWORD, signUpMember } from "./_oauth.ts";
import { post } from "./_members.ts";
import { assertSelector, assertText, Browser, hiddenValue, signedUpBrowser } from "./_web.ts";

/** Many sign-ups from one address here: the `auth` quota is not what these tests are about. */
const ROOMY = { config: { rateLimitMultiplier: 100 } };

const COMMON = /this is one of the most common passwords/;

/** The two the issue names, and the same in capitals (the list is compared case-insensitively). */
const WEAK = ["password", "12345678", "PASSWORD", "Password1", "iloveyou", "qwertyuiop"];

/** A fresh read-only API token of the session. */
async function mintToken(url: string, sessionToken: string): Promise<string> {
  const res = await post(
    url,
    "/api/tokens",
    { action: "create", name: "script", scopes: ["read"] },
    sessionToken,
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.token as string;
}

/** A member as the OAuth helpers need it, from a web client's cookie. */
function asBrowserMember(w: Browser, username: string): BrowserMember {
  return {
    username,
    memberId: "",
    sessionToken: w.sessionToken,
    cookie: `rt_session=${w.sessionToken}`,
  };
}

/** Status of a REST read with `token`, and of an MCP tools/call with `access`. */
async function credentialStatuses(server: TestServer, token: string, access: string) {
  const rest = await post(server.url, "/api/proxy", { action: "listColumns" }, token);
  const mcp = await callTool(server.url, access);
  return { rest: rest.status, mcp: mcp.status };
}

Deno.test("POST /api/auth refuses a common password", async (t) => {
  await using server = await startServer(ROOMY);

  await t.step("register: 400 invalid_request naming the rule; no account is made", async () => {
    for (const [i, password] of WEAK.entries()) {
      const username = `weak${i}`;
      const res = await post(server.url, "/api/auth", { action: "register", username, password });
      assert.equal(res.status, 400, password);
      assert.equal(res.body.code, "invalid_request");
      assert.match(res.body.error as string, COMMON);
      const login = await post(server.url, "/api/auth", { action: "login", username, password });
      assert.equal(login.status, 401, `${password}: no account`);
    }
  });
  await t.step("changePassword: 400, and the old password still works", async () => {
    const m = await signUpMember(server.url, "olga");
    for (const newPassword of ["password", "12345678"]) {
      const res = await post(server.url, "/api/auth", {
        action: "changePassword",
        currentPassword: PASSWORD,
        newPassword,
      }, m.sessionToken);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, "invalid_request");
      assert.match(res.body.error as string, COMMON);
    }
    const login = await post(server.url, "/api/auth", {
      action: "login",
      username: "olga",
      password: PASSWORD,
    });
    assert.equal(login.status, 200);
  });
  await t.step("a member whose old password is common can still sign in with it", async () => {
    // Only new passwords are checked: signing in takes any string (NIST SP 800-63B §5.1.1.2).
    const res = await post(server.url, "/api/auth", {
      action: "login",
      username: "olga",
      password: "12345678",
    });
    assert.equal(res.status, 401, "wrong password, not a validation error");
    assert.equal(res.body.code, "invalid_credentials");
  });
});

Deno.test("POST /signup refuses a common password beside the field", async (t) => {
  await using server = await startServer(ROOMY);
  for (const password of ["password", "12345678"]) {
    await t.step(password, async () => {
      const w = new Browser(server);
      await w.get("/signup");
      const res = await w.post("/signup", { username: `pat${password.length}x`, password });
      assert.equal(res.status, 400);
      assertSelector(res.html, "#f-password-error", {
        count: 1,
        text: /^Password: this is one of the most common/,
      });
      assertSelector(res.html, 'input#f-password[aria-invalid="true"]', { count: 1 });
      assert.equal(w.cookies.get("rt_session"), undefined, "not signed in");
    });
  }
});

Deno.test("POST /app/settings/password", async (t) => {
  await using server = await startServer(ROOMY);

  await t.step(
    "offers to end tokens and apps, checked by default, as a plain checkbox",
    async () => {
      const w = await signedUpBrowser(server, "quinn");
      const { html } = await w.get("/app/settings");
      const box = 'input[type="checkbox"][name="endTokensAndApps"][value="on"][checked]';
      assertSelector(html, `label:has(> ${box})`, {
        count: 1,
        text: /^Also end every API token and connected app$/,
      });
    },
  );

  await t.step("a common new password: 422 beside the field, the box as it was", async () => {
    const w = await signedUpBrowser(server, "rosa");
    const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
    const res = await w.post("/app/settings/password", {
      csrf,
      currentPassword: PASSWORD,
      newPassword: "12345678",
    });
    assert.equal(res.status, 422);
    assertSelector(res.html, "#f-newPassword-error", {
      count: 1,
      text: /^Password: this is one of the most common/,
    });
    // left unchecked, shown so
    assertSelector(res.html, 'input[name="endTokensAndApps"][value="on"]:not([checked])', {
      count: 1,
    });
  });

  await t.step("checked: the API token and the connected app stop working", async () => {
    const w = await signedUpBrowser(server, "sven");
    const token = await mintToken(server.url, w.sessionToken);
    const access = await accessTokenFor(server.url, asBrowserMember(w, "sven"));
    assert.deepEqual(await credentialStatuses(server, token, access), { rest: 200, mcp: 200 });
    const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
    const res = await w.post("/app/settings/password", {
      csrf,
      currentPassword: PASSWORD,
      newPassword: "a brand new passphrase",
      endTokensAndApps: "on",
    });
    assert.equal(res.status, 303);
    assert.deepEqual(await credentialStatuses(server, token, access), { rest: 401, mcp: 401 });
    const page = await w.get("/app/settings");
    assert.equal(page.status, 200, "this session stays");
    assertText(page.html, "every API token and connected app is ended.");
    assert.doesNotMatch(page.html, /rt_ro_[A-Za-z0-9]{4}/, "no token anywhere in the markup");
  });

  await t.step("unchecked (no field sent): both keep working", async () => {
    const w = await signedUpBrowser(server, "tove");
    const token = await mintToken(server.url, w.sessionToken);
    const access = await accessTokenFor(server.url, asBrowserMember(w, "tove"));
    const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
    const res = await w.post("/app/settings/password", {
      csrf,
      currentPassword: PASSWORD,
      newPassword: "a brand new passphrase",
    });
    assert.equal(res.status, 303);
    assert.deepEqual(await credentialStatuses(server, token, access), { rest: 200, mcp: 200 });
    assertText((await w.get("/app/settings")).html, "API tokens and connected apps still work.");
  });
});

Deno.test("POST /api/auth changePassword with endTokensAndApps", async (t) => {
  await using server = await startServer(ROOMY);

  for (const end of [true, false]) {
    await t.step(
      `${end}: tokens and apps ${end ? "end" : "stay"}; other sessions end`,
      async () => {
        const m = await signUpMember(server.url, `ulla${end}`);
        const token = await mintToken(server.url, m.sessionToken);
        const access = await accessTokenFor(server.url, m);
        const other = await post(server.url, "/api/auth", {
          action: "login",
          username: m.username,
          password: PASSWORD,
        });
        const res = await post(server.url, "/api/auth", {
          action: "changePassword",
          currentPassword: PASSWORD,
          newPassword: "a brand new passphrase",
          endTokensAndApps: end,
        }, m.sessionToken);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(res.body, {
          passwordChanged: true,
          otherSessionsSignedOut: true,
          tokensAndAppsEnded: end,
        });
        const want = end ? 401 : 200;
        assert.deepEqual(await credentialStatuses(server, token, access), {
          rest: want,
          mcp: want,
        });
        const session = (sessionToken: string) =>
          post(server.url, "/api/auth", { action: "session" }, sessionToken);
        assert.equal((await session(m.sessionToken)).status, 200, "the caller's session stays");
        assert.equal((await session(other.body.sessionToken as string)).status, 401);
      },
    );
  }
  await t.step("left out, it is false: nothing but sessions ends", async () => {
    const m = await signUpMember(server.url, "vera");
    const token = await mintToken(server.url, m.sessionToken);
    const res = await post(server.url, "/api/auth", {
      action: "changePassword",
      currentPassword: PASSWORD,
      newPassword: "a brand new passphrase",
    }, m.sessionToken);
    assert.equal(res.status, 200);
    assert.equal(res.body.tokensAndAppsEnded, false);
    assert.equal(
      (await post(server.url, "/api/proxy", { action: "listColumns" }, token)).status,
      200,
    );
  });
  await t.step("a wrong current password ends nothing", async () => {
    const m = await signUpMember(server.url, "wim");
    const token = await mintToken(server.url, m.sessionToken);
    const res = await post(server.url, "/api/auth", {
      action: "changePassword",
      currentPassword: "not the password",
      newPassword: "a brand new passphrase",
      endTokensAndApps: true,
    }, m.sessionToken);
    assert.equal(res.status, 401);
    assert.equal(
      (await post(server.url, "/api/proxy", { action: "listColumns" }, token)).status,
      200,
    );
  });
});
