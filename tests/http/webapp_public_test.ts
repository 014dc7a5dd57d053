/** The signed-out pages of the web app: landing, membership, manifest (issue #11 items 4–6). */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { assertSelector, assertText, Browser, signedUpBrowser } from "./_web.ts";
import { TIER_LIMITS } from "../../lib/coach/tier.ts";

Deno.test("GET /", async (t) => {
  await using app = await makeApp();
  await t.step("says what it does and leads to Create account and Sign in", async () => {
    const page = await new Browser(app).get("/");
    assert.equal(page.status, 200);
    assertSelector(page.html, "h1", { count: 1 });
    assertSelector(page.html, 'a.button.primary[href="/signup"]', {
      count: 1,
      text: "Create account",
    });
    assertSelector(page.html, 'a.button:not(.primary)[href="/signin"]', {
      count: 1,
      text: "Sign in",
    });
    assertSelector(page.html, 'a[href="/membership"]');
  });
  await t.step("keeps the developer and agent entrances", async () => {
    const { html } = await new Browser(app).get("/");
    for (const href of ["/docs/mcp", "/docs/sandbox", "/docs/mcp-tools", "/api", "/openapi.json"]) {
      assertSelector(html, `a[href="${href}"]`);
    }
    assertText(html, "http://localhost:8000/api/mcp");
  });
  await t.step("is installable: manifest link, theme colour, icons", async () => {
    const { html } = await new Browser(app).get("/");
    assertSelector(html, 'head link[rel="manifest"][href="/static/manifest.webmanifest"]', {
      count: 1,
    });
    assertSelector(html, 'head meta[name="theme-color"][content]');
    assertSelector(
      html,
      'head meta[name="viewport"][content="width=device-width, initial-scale=1"]',
      {
        count: 1,
      },
    );
    const res = await app.request("/static/manifest.webmanifest");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/manifest+json");
    const manifest = await res.json();
    assert.equal(manifest.display, "standalone");
    assert.equal(manifest.start_url, "/app");
    for (const size of ["192x192", "512x512"]) {
      const icon = manifest.icons.find((i: { sizes: string }) => i.sizes === size);
      const png = await app.request(icon.src);
      assert.equal(png.status, 200);
      assert.equal(png.headers.get("content-type"), "image/png");
      const bytes = new Uint8Array(await png.arrayBuffer());
      const view = new DataView(bytes.buffer);
      // PNG IHDR: width and height at bytes 16 and 20.
      assert.equal(`${view.getUint32(16)}x${view.getUint32(20)}`, size);
    }
  });
  await t.step("a signed-in visitor gets a link to Today", async () => {
    const b = await signedUpBrowser(app);
    const { html } = await b.get("/");
    assertSelector(html, 'main a.button.primary[href="/app"]', { count: 1, text: "Go to Today" });
    assertSelector(html, 'a[href="/signup"]', { count: 0 });
  });
});

Deno.test("GET /membership", async (t) => {
  await using app = await makeApp();
  const { status, html } = await new Browser(app).get("/membership");
  await t.step("free and paid in plain words, the price from the pricing terms", () => {
    assert.equal(status, 200);
    assertSelector(html, "h1", { count: 1, text: /^Membership$/ });
    for (const words of ["0 USD", "50 USD a year", "MCP server with all 18 tools"]) {
      assertText(html, words);
    }
    assertText(html, "weekly review");
    assertText(html, "same for every member");
  });
  await t.step("each tier's coach limits are the ones the coach runs on (TIER_LIMITS)", () => {
    const { free, paid } = TIER_LIMITS;
    assertText(html, `reads the last ${free.lookbackDays} days`);
    assertText(html, `up to ${free.weeklyNew} new findings a week`);
    assertText(html, "same-day relationships");
    assertText(html, `Reads the last ${paid.lookbackDays} days`);
    assertText(html, `delayed effects of up to ${paid.maxLag} days`);
    assertText(html, `Up to ${paid.weeklyNew} new findings a week`);
  });
});

Deno.test("GET /signin from the consent screen", async (t) => {
  await using app = await makeApp();
  await signedUpBrowser(app, "alice");
  await t.step("next keeps the authorization request's path and query", async () => {
    const next = "/api/oauth/authorize?client_id=abc&state=x%20y";
    const b = new Browser(app);
    const res = await b.post(`/signin?next=${encodeURIComponent(next)}`, {
      username: "alice",
      password: "a long passphrase",
    });
    assert.equal(res.status, 303);
    assert.equal(res.location, next);
  });
});

Deno.test("GET /<no such page>", async (t) => {
  await using app = await makeApp();
  await t.step("a browser gets the 404 page", async () => {
    const res = await app.request("/no-such-page", { headers: { Accept: "text/html" } });
    assert.equal(res.status, 404);
    assert.match(res.headers.get("content-type") ?? "", /text\/html/);
    assertSelector(await res.text(), "h1", { count: 1, text: /^Page not found$/ });
  });
  await t.step("/app/ leads to /app", async () => {
    const res = await app.request("/app/", { headers: { Accept: "text/html" } });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/app");
  });
  await t.step("API clients and API paths keep the JSON envelope", async () => {
    for (
      const [path, accept] of [["/no-such-page", "application/json"], [
        "/api/nope",
        "text/html",
      ]]
    ) {
      const res = await app.request(path, { headers: { Accept: accept } });
      assert.equal(res.status, 404);
      assert.equal((await res.json()).code, "not_found");
    }
  });
});
