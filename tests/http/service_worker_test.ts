/**
 * The service worker's script (issue #24): served at the site's root so its scope is the whole
 * site, as JavaScript, revalidated on every update check, under its own CSP — and signed-in pages
 * load the script that registers it.
 */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { SERVICE_WORKER_CSP } from "../../lib/http/kernel/security_headers.ts";
import { assertSelector, signedUpBrowser } from "./_web.ts";

Deno.test("GET /sw.js", async (t) => {
  await using app = await makeApp();

  await t.step("is the worker's script, as JavaScript, at the root", async () => {
    const res = await app.request("/sw.js");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/javascript\b/);
    const body = await res.text();
    assert.match(body, /addEventListener\("fetch"/);
    assert.match(body, /addEventListener\("push"/);
    assert.match(body, /addEventListener\("notificationclick"/);
  });

  await t.step("carries its own CSP: this origin only, no other script", async () => {
    const res = await app.request("/sw.js");
    await res.body?.cancel();
    assert.equal(res.headers.get("content-security-policy"), SERVICE_WORKER_CSP);
    assert.match(SERVICE_WORKER_CSP, /default-src 'none'/);
    assert.match(SERVICE_WORKER_CSP, /connect-src 'self'/);
    assert.match(SERVICE_WORKER_CSP, /script-src 'none'/);
  });

  await t.step("is revalidated on every update check, with its ETag", async () => {
    const res = await app.request("/sw.js");
    await res.body?.cancel();
    assert.equal(res.headers.get("cache-control"), "no-cache");
    const etag = res.headers.get("etag");
    assert.ok(etag);
    const again = await app.request("/sw.js", { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("content-security-policy"), SERVICE_WORKER_CSP);
  });

  await t.step(
    "a signed-in page loads the script that registers it; Today's form joins the queue",
    async () => {
      const b = await signedUpBrowser(app);
      assert.equal((await b.post("/app/columns", { do: "templates_all" })).status, 303);
      const html = (await b.get("/app")).html;
      assertSelector(html, 'script[src="/static/offline.js"]', { count: 1 });
      assertSelector(html, "[data-member=alice]", { count: 1 });
      assertSelector(html, 'form[method=post][action="/app"][data-offline]', { count: 1 });
      const script = await app.request("/static/offline.js");
      assert.match(await script.text(), /serviceWorker\.register\("\/sw\.js"\)/);
    },
  );
});
