/** Sign up, sign in and sign out in the browser (issue #11 item 1), over `app.request`. */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import {
  assertNamed,
  assertSelector,
  Browser,
  csrfOf,
  OWN_ORIGIN,
  signedUpBrowser,
} from "./_web.ts";

const PASSWORD = "a long passphrase";

Deno.test("POST /signup", async (t) => {
  await using app = await makeApp();

  await t.step("GET shows the form with labelled fields and a form token", async () => {
    const page = await new Browser(app).get("/signup");
    assert.equal(page.status, 200);
    assertNamed(page.html, 'form[method="post"] input[name="username"]', "Username", 1);
    assertNamed(page.html, 'form[method="post"] input[name="password"]', "Password", 1);
    assertNamed(page.html, 'form[method="post"] button[type="submit"]', "Create account", 1);
    assertSelector(page.html, "h1", { count: 1 });
    csrfOf(page.html);
  });
  await t.step(
    "creates the account, sets an HttpOnly SameSite=Lax cookie, lands on /app",
    async () => {
      const b = new Browser(app);
      await b.get("/signup");
      const res = await b.post("/signup", {
        username: "alice",
        password: PASSWORD,
        timezone: "Europe/Paris",
      });
      assert.equal(res.status, 303);
      assert.equal(res.location, "/app");
      const cookie = res.res.headers.getSetCookie().find((c) => c.startsWith("rt_session="))!;
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Lax/);
      assert.match(cookie, /Path=\//);
      assert.doesNotMatch(cookie, /Secure/, "BASE_URL is http here");
      const who = await app.request("/api/proxy", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${b.session}` },
        body: JSON.stringify({ action: "getProfile" }),
      });
      const profile = await who.json();
      assert.equal(profile.username, "alice");
      assert.equal(profile.timezone, "Europe/Paris");
    },
  );
  await t.step("a taken username is reported beside the field", async () => {
    const b = new Browser(app);
    const res = await b.post("/signup", { username: "ALICE", password: PASSWORD });
    assert.equal(res.status, 409);
    assertSelector(res.html, "#f-username-error", {
      count: 1,
      text: /^The username "ALICE" is already registered/,
    });
    const field = '#f-username[aria-invalid="true"][aria-describedby~="f-username-error"]';
    assertSelector(res.html, `${field}[value="ALICE"]`, { count: 1 }); // the typed name is kept
  });
  await t.step("a short password is reported beside the field", async () => {
    const res = await new Browser(app).post("/signup", { username: "bob", password: "short" });
    assert.equal(res.status, 400);
    assertSelector(res.html, "#f-password-error", {
      count: 1,
      text: /^Password: at least 8 characters/,
    });
  });
  await t.step("garbage never gives a 500", async () => {
    for (
      const fields of <Record<string, string>[]> [{}, { username: "\u0000".repeat(500) }, {
        password: "x".repeat(5000),
      }, {
        username: "<script>",
        password: PASSWORD,
        timezone: "Mars/Olympus",
      }]
    ) {
      const res = await new Browser(app).post("/signup", fields);
      assert.ok(res.status < 500 && res.status >= 400, `${res.status}`);
      assert.doesNotMatch(res.html, /<script>/); // on the markup: the name is escaped, not injected
    }
  });
  await t.step("a cross-site form is refused (login CSRF)", async () => {
    const res = await new Browser(app).post(
      "/signup",
      { username: "mallory", password: PASSWORD },
      {
        Origin: "https://evil.example",
      },
    );
    assert.equal(res.status, 403);
    const again = await new Browser(app).post("/signup", {
      username: "mallory",
      password: PASSWORD,
    }, {});
    assert.equal(again.status, 403, "no Origin and no pre-session token");
  });
  await t.step("no Origin but the pre-session form token works (old browsers)", async () => {
    const b = new Browser(app);
    const csrf = csrfOf((await b.get("/signup")).html);
    const res = await b.post("/signup", { username: "carol", password: PASSWORD, csrf }, {});
    assert.equal(res.status, 303);
  });
});

Deno.test("POST /signin", async (t) => {
  await using app = await makeApp();
  await signedUpBrowser(app, "alice");

  await t.step("right password: cookie and 303 to a safe next", async () => {
    const b = new Browser(app);
    const res = await b.post("/signin?next=%2Fapp%2Fhistory", {
      username: "alice",
      password: PASSWORD,
    });
    assert.equal(res.status, 303);
    assert.equal(res.location, "/app/history");
    assert.ok(b.session);
  });
  await t.step("wrong password and unknown user get one generic message", async () => {
    const wrong = await new Browser(app).post("/signin", {
      username: "alice",
      password: "wrong password",
    });
    const unknown = await new Browser(app).post("/signin", {
      username: "nobody",
      password: PASSWORD,
    });
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    for (const r of [wrong, unknown]) {
      assertSelector(r.html, "#f-password-error", {
        count: 1,
        text: /^Username or password is incorrect\./,
      });
    }
  });
  await t.step("next never leaves the site", async () => {
    for (
      const evil of [
        "//evil.example",
        "/\\evil.example",
        "https://evil.example/x",
        "javascript:alert(1)",
      ]
    ) {
      const b = new Browser(app);
      const res = await b.post(`/signin?next=${encodeURIComponent(evil)}`, {
        username: "alice",
        password: PASSWORD,
      });
      assert.equal(res.status, 303);
      assert.equal(res.location, "/app", evil);
    }
  });
  await t.step("signed in, GET /signin goes straight on", async () => {
    const b = await signedUpBrowser(app, "dave");
    const res = await b.get("/signin?next=%2Fapp%2Fcolumns");
    assert.equal(res.status, 303);
    assert.equal(res.res.headers.get("location"), "/app/columns");
  });
  await t.step("the auth rate-limit policy governs sign-in posts", async () => {
    let last = 0;
    for (let i = 0; i < 12; i++) {
      last = (await new Browser(app).post("/signin", { username: "alice", password: "nope nope" }))
        .status;
    }
    assert.equal(last, 429);
  });
});

Deno.test("web app: sign up, sign out, sign in again", async () => {
  await using app = await makeApp();
  const b = await signedUpBrowser(app, "erin");
  const today = await b.get("/app/anything");
  const csrf = csrfOf(today.html);
  const out = await b.post("/signout", { csrf }, { Origin: OWN_ORIGIN });
  assert.equal(out.status, 303);
  const signin = await b.get("/signin");
  assertSelector(signin.html, '[role="status"]', { count: 1, text: "You are signed out." });
  assert.equal((await b.get("/app/anything")).status, 303);
  const back = await b.post("/signin", { username: "erin", password: PASSWORD });
  assert.equal(back.status, 303);
  assert.equal((await b.get("/app/anything")).status, 404);
});

Deno.test("POST /signup behind https", async (t) => {
  await using app = await makeApp({ config: { baseUrl: "https://tracker.example" } });
  await t.step("the session cookie is Secure when BASE_URL is https", async () => {
    const b = new Browser(app);
    const res = await b.post("/signup", { username: "alice", password: PASSWORD }, {
      Origin: "https://tracker.example",
    });
    assert.equal(res.status, 303);
    const cookie = res.res.headers.getSetCookie().find((c) => c.startsWith("rt_session="))!;
    assert.match(cookie, /Secure/);
    assert.match(cookie, /HttpOnly/);
  });
  await t.step("the http origin of the same host is not ours", async () => {
    const res = await new Browser(app).post("/signup", { username: "bob", password: PASSWORD }, {
      Origin: "http://tracker.example",
    });
    assert.equal(res.status, 403);
  });
});

/** The four `next` values of issue #19 item 3, each of which once answered `Location: //evil.com`. */
const DOT_SEGMENT_REDIRECTS = [
  "/.//evil.com",
  "/..//evil.com",
  "/%2e//evil.com",
  "/a/..//evil.com",
];

Deno.test("open redirect: no next with dot segments leaves the site from /signin or /signup", async (t) => {
  await using app = await makeApp();
  const member = await signedUpBrowser(app, "erin");

  await t.step("a signed-in member's GET of either page goes to /app", async () => {
    for (const page of ["/signin", "/signup"]) {
      for (const evil of DOT_SEGMENT_REDIRECTS) {
        const res = await member.get(`${page}?next=${encodeURIComponent(evil)}`);
        assert.equal(res.status, 303, `${page} ${evil}`);
        assert.equal(res.res.headers.get("location"), "/app", `${page} ${evil}`);
      }
    }
  });
  await t.step("the same values sent raw in the query (no encoding) go to /app too", async () => {
    for (const evil of DOT_SEGMENT_REDIRECTS) {
      const res = await member.get(`/signin?next=${evil}`);
      assert.equal(res.res.headers.get("location"), "/app", evil);
    }
  });
  await t.step("signing in or up with such a next lands on /app", async () => {
    let n = 0;
    for (const evil of DOT_SEGMENT_REDIRECTS) {
      const q = `?next=${encodeURIComponent(evil)}`;
      const signIn = await new Browser(app).post(`/signin${q}`, {
        username: "erin",
        password: PASSWORD,
      });
      assert.equal(signIn.status, 303);
      assert.equal(signIn.location, "/app", `/signin ${evil}`);
      const b = new Browser(app);
      await b.get("/signup");
      const signUp = await b.post(`/signup${q}`, { username: `erin${n++}`, password: PASSWORD });
      assert.equal(signUp.status, 303);
      assert.equal(signUp.location, "/app", `/signup ${evil}`);
    }
  });
});
