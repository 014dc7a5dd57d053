/** The one test browser's page assertions (tests/http/_web.ts, issue #23). */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { assertSelector, Browser } from "./_web.ts";

const PAGE = `<!doctype html><html lang="en"><head><title>T</title></head><body>
  <!-- <a href="/signup">Create account</a> -->
  <main id="main"><h1>Membership</h1>
    <p>Write <code>&lt;a href="/signup"&gt;</code> to link.</p>
    <a class="button primary" href="/signin">  Sign
      in </a>
  </main></body></html>`;

Deno.test("assertSelector() checks a parsed DOM: count, text, and markup that only looks like a match", () => {
  assertSelector(PAGE, "main#main h1", { count: 1, text: /^Membership$/ });
  assertSelector(PAGE, 'a.button.primary[href="/signin"]', { count: 1, text: "Sign in" });
  // A regex over the markup finds a sign-up link in a comment and in escaped text; the DOM has none.
  assert.match(PAGE, /href="\/signup"/);
  assertSelector(PAGE, 'a[href="/signup"]', { count: 0 });
  assert.throws(() => assertSelector(PAGE, 'a[href="/signup"]'), /no element matches/);
  assert.throws(() => assertSelector(PAGE, "h1", { count: 2 }), /h1: 1 matches/);
  assert.throws(() => assertSelector(PAGE, "h1", { text: "Pricing" }), /lacks Pricing/);
});

Deno.test("Browser: one client over app.request keeps cookies and posts with the app's origin", async () => {
  await using app = await makeApp();
  const b = new Browser(app);
  assert.equal(b.origin, "http://localhost:8000");
  const page = await b.get("/signup");
  assertSelector(page.html, 'form[method="post"] input[name="csrf"]', { count: 1 });
  const res = await b.post("/signup", { username: "ada", password: "a long passphrase" });
  assert.equal(res.status, 303, res.html);
  assert.ok(b.sessionToken);
  assert.match(b.cookie, /rt_session=/);
});
