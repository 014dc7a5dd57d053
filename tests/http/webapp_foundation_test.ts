/** The web app's shared plumbing (lib/http/web/browser_session.ts, pages.ts): sign-in redirects and CSRF refusals. */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import { assertNamed, assertSelector, assertText, Browser, csrfOf, OWN_ORIGIN } from "./_web.ts";

/** A browser holding the session of a member registered through /api/auth. */
async function apiRegistered(t: TestApp, username = "alice"): Promise<Browser> {
  const res = await t.request("/api/auth", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ action: "register", username, password: "a long passphrase" }),
  });
  assert.equal(res.status, 201);
  const b = new Browser(t);
  b.cookies.set("rt_session", (await res.json()).sessionToken);
  return b;
}

async function sessionAlive(t: TestApp, token: string): Promise<boolean> {
  const res = await t.request("/api/auth", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ action: "session" }),
  });
  await res.body?.cancel();
  return res.status === 200;
}

Deno.test("GET /app/<unknown>", async (t) => {
  await using app = await makeApp();
  await t.step("signed out: 303 to /signin with the path as next", async () => {
    const res = await new Browser(app).get("/app/nothing-here?x=1");
    assert.equal(res.status, 303);
    assert.equal(res.res.headers.get("location"), "/signin?next=%2Fapp%2Fnothing-here%3Fx%3D1");
  });
  await t.step("an expired or unknown session counts as signed out", async () => {
    const b = new Browser(app);
    b.cookies.set("rt_session", "rt_ses_not-a-session");
    assert.equal((await b.get("/app/x")).status, 303);
  });
  await t.step("signed in: a 404 page inside the app frame", async () => {
    const b = await apiRegistered(app);
    const res = await b.get("/app/nothing-here");
    assert.equal(res.status, 404);
    assert.match(res.res.headers.get("content-type") ?? "", /text\/html/);
    assertSelector(res.html, "h1", { count: 1, text: /^Page not found$/ });
    assertNamed(res.html, 'form[action="/signout"] button[type="submit"]', "Sign out", 1);
    assertSelector(res.html, 'nav[aria-label="App"] a[href="/app"]', { count: 1 });
    assert.equal(res.res.headers.get("cache-control"), "no-store");
  });
});

Deno.test("POST /signout", async (t) => {
  await using app = await makeApp();
  const b = await apiRegistered(app);
  const token = b.session!;
  const csrf = csrfOf((await b.get("/app/x")).html);

  await t.step("another Origin is refused and the session lives on", async () => {
    const res = await b.post("/signout", { csrf }, { Origin: "https://evil.example" });
    assert.equal(res.status, 403);
    assertText(res.html, "refused");
    assert.ok(await sessionAlive(app, token));
  });
  await t.step("Sec-Fetch-Site: cross-site is refused even with the token", async () => {
    const res = await b.post("/signout", { csrf }, { "Sec-Fetch-Site": "cross-site" });
    assert.equal(res.status, 403);
    assert.ok(await sessionAlive(app, token));
  });
  await t.step("no Origin and no form token is refused", async () => {
    assert.equal((await b.post("/signout", {}, {})).status, 403);
    assert.equal((await b.post("/signout", { csrf: "x".repeat(43) }, {})).status, 403);
    assert.ok(await sessionAlive(app, token));
  });
  await t.step("no Origin with the session's form token signs out", async () => {
    const res = await b.post("/signout", { csrf }, {});
    assert.equal(res.status, 303);
    assert.equal(res.location, "/signin");
    assert.equal(b.session, undefined, "the cookie is cleared");
    assert.equal(await sessionAlive(app, token), false, "the session is dead server-side");
  });
  await t.step("our own Origin suffices (a modern browser)", async () => {
    const again = await apiRegistered(app, "bob");
    const res = await again.post("/signout", {}, { Origin: OWN_ORIGIN });
    assert.equal(res.status, 303);
  });
});
