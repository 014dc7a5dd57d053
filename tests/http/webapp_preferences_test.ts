/**
 * Preferences (issue #25): the theme, the first day of the week, the one date style and what the
 * units setting affects (defect 5), on `app.request` with a fresh KV; and the member-facing
 * `/help` page, HTML and Markdown, linked from every app page.
 */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import {
  assertNoText,
  assertSelector,
  assertText,
  hiddenValue,
  proxyAs,
  querySelectorAll,
  signedUpBrowser,
  textOf,
} from "./_web.ts";

const CHOICES = { theme: "dark", weekStartsOn: "0", locale: "en-US", units: "imperial" };

Deno.test("GET /app/settings", async (t) => {
  await using app = await makeApp();
  const w = await signedUpBrowser(app, "pia");

  await t.step(
    "Preferences: theme, first day of the week, dates and units, with defaults",
    async () => {
      const { html } = await w.get("/app/settings");
      assertSelector(html, "#preferences h2", { count: 1, text: "Preferences" });
      assertSelector(html, '#preferences input[type="radio"][name="theme"]', { count: 3 });
      assertSelector(html, '#preferences input[name="theme"][value="system"][checked]', {
        count: 1,
      });
      assertSelector(html, '#f-weekStartsOn option[value="1"][selected]', { text: "Monday" });
      assertSelector(html, '#f-locale option[value="en-GB"][selected]', {
        text: "26 November 2026, 21:00",
      });
      assertSelector(html, '#f-locale option[value="en-US"]', {
        text: "November 26, 2026, 9:00 PM",
      });
      assertSelector(html, 'a[href="#preferences"]', { count: 1, text: "Preferences" });
    },
  );

  await t.step(
    "units say exactly what they affect (defect 5): new columns, nothing converted",
    async () => {
      const { html } = await w.get("/app/settings");
      assertSelector(html, 'label[for="f-units"]', { count: 1, text: "Units of new columns" });
      assertSelector(html, "#f-units-hint", { count: 1, text: "It converts nothing you logged" });
      assertSelector(html, "#f-units-hint", { text: "Weight template" });
    },
  );
});

Deno.test("POST /app/settings/preferences", async (t) => {
  await using app = await makeApp();
  const w = await signedUpBrowser(app, "pia");
  const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");

  await t.step("saved through updateProfile, 303 with a flash", async () => {
    const res = await w.post("/app/settings/preferences", { csrf, ...CHOICES });
    assert.equal(res.status, 303);
    assert.equal(res.location, "/app/settings#preferences");
    const profile = await proxyAs(w, { action: "getProfile" });
    assert.equal(profile.theme, "dark");
    assert.equal(profile.weekStartsOn, 0);
    assert.equal(profile.locale, "en-US");
    assert.equal(profile.units, "imperial");
    const page = await w.get("/app/settings");
    assertSelector(page.html, '[role="status"]', { count: 1, text: "Preferences saved." });
    assertSelector(page.html, '#preferences input[name="theme"][value="dark"][checked]');
    assertSelector(page.html, '#f-weekStartsOn option[value="0"][selected]', { text: "Sunday" });
  });

  await t.step("the theme is on every app page's <html>, without JavaScript", async () => {
    for (const path of ["/app", "/app/settings", "/app/history", "/app/columns"]) {
      const { html } = await w.get(path);
      assertSelector(html, 'html[data-theme="dark"]', { count: 1 });
      assertSelector(html, 'meta[name="color-scheme"][content="dark"]', { count: 1 });
    }
  });

  await t.step("System again: no fixed theme, both schemes offered", async () => {
    await w.post("/app/settings/preferences", { csrf, ...CHOICES, theme: "system" });
    const { html } = await w.get("/app");
    assertSelector(html, "html[data-theme]", { count: 0 });
    assertSelector(html, 'meta[name="color-scheme"][content="light dark"]', { count: 1 });
  });

  await t.step("a bad choice: 422, the message beside the field, nothing saved", async () => {
    const res = await w.post("/app/settings/preferences", {
      csrf,
      ...CHOICES,
      theme: "purple",
      weekStartsOn: "7",
    });
    assert.equal(res.status, 422);
    assertSelector(res.html, "#f-theme-error", { count: 1, text: "Choose System, Light or Dark." });
    assertSelector(res.html, "#f-weekStartsOn-error", { text: "Choose a day of the week." });
    assert.equal((await proxyAs(w, { action: "getProfile" })).weekStartsOn, 0);
  });

  await t.step("CSRF: another Origin → 403, nothing saved", async () => {
    const evil = await w.post("/app/settings/preferences", { csrf, ...CHOICES, theme: "light" }, {
      Origin: "https://evil.example",
    });
    assert.equal(evil.status, 403);
    assert.equal((await proxyAs(w, { action: "getProfile" })).theme, "system");
  });
});

Deno.test("dates: one style on every page, in the member's chosen locale", async (t) => {
  await using app = await makeApp();
  const w = await signedUpBrowser(app, "dee");
  const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
  await w.post("/app/settings/tokens", { csrf, name: "Laptop script" });

  await t.step("day first by default: Today and Settings write the same style", async () => {
    assertText((await w.get("/app")).html, "Sunday 22 November 2026");
    const settings = (await w.get("/app/settings")).html;
    assertText(settings, "created 22 November 2026");
    assertNoText(settings, "Nov 22, 2026");
  });

  await t.step("month first once chosen: the same pages follow", async () => {
    await w.post("/app/settings/preferences", { csrf, ...CHOICES, locale: "en-US" });
    assertText((await w.get("/app")).html, "Sunday, November 22, 2026");
    assertText((await w.get("/app/settings")).html, "created November 22, 2026");
  });
});

Deno.test("POST /api/proxy", async (t) => {
  await using app = await makeApp();
  const w = await signedUpBrowser(app, "api");

  await t.step(
    "updateProfile takes theme, weekStartsOn and locale; getProfile reports them",
    async () => {
      const before = await proxyAs(w, { action: "getProfile" });
      assert.deepEqual([before.theme, before.weekStartsOn, before.locale], ["system", 1, "en-GB"]);
      await proxyAs(w, {
        action: "updateProfile",
        theme: "light",
        weekStartsOn: 6,
        locale: "en-US",
      });
      const after = await proxyAs(w, { action: "getProfile" });
      assert.deepEqual([after.theme, after.weekStartsOn, after.locale], ["light", 6, "en-US"]);
    },
  );

  await t.step("updateProfile refuses weekStartsOn 7 with a 400 envelope", async () => {
    const res = await w.request("/api/proxy", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${w.session}` },
      body: JSON.stringify({ action: "updateProfile", weekStartsOn: 7 }),
    });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.code, "invalid_request");
  });
});

Deno.test("GET /help", async (t) => {
  await using app = await makeApp();

  await t.step("HTML: the member's questions, each under its own heading", async () => {
    const res = await app.request("/help");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/html/);
    const html = await res.text();
    assertSelector(html, "h1", { count: 1, text: "Help" });
    const headings = querySelectorAll(html, "article h2").map(textOf);
    for (
      const h of [
        "Skips, missing days and streaks",
        "Weekly goals",
        "Groups",
        "Pauses",
        "The coach and its tiers",
        "Reminders",
        "Preferences",
        "Privacy",
      ]
    ) {
      assert.ok(headings.some((x) => x.endsWith(h)), `a heading "${h}" in ${headings}`);
    }
    assertText(html, "a missing day breaks the streak");
  });

  await t.step("Markdown on Accept: text/markdown", async () => {
    const res = await app.request("/help", { headers: { Accept: "text/markdown" } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/markdown/);
    assert.match(await res.text(), /^## Skips, missing days and streaks$/m);
  });

  await t.step("linked from the app's pages and the public pages", async () => {
    const w = await signedUpBrowser(app, "hal");
    assertSelector((await w.get("/app")).html, 'footer a[href="/help"]', {
      count: 1,
      text: "Help",
    });
    const home = await (await app.request("/signin")).text();
    assertSelector(home, 'footer a[href="/help"]', { count: 1, text: "Help" });
  });
});
