/** Today (`/app`) and Columns (`/app/columns`) pages over `app.request` (issue #11 items 2–3). */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import {
  assertNamed,
  assertNoText,
  assertSelector,
  assertText,
  type Browser,
  csrfOf,
  proxyAs,
  signedUpBrowser,
} from "./_web.ts";

async function entriesOf(b: Browser, start: string, end = start) {
  const res = await proxyAs(b, { action: "getEntries", start, end });
  return res.entries as { date: string; values: Record<string, unknown> }[];
}

async function withStarters(t: TestApp): Promise<Browser> {
  const b = await signedUpBrowser(t);
  const res = await b.post("/app/columns", { do: "templates_all" });
  assert.equal(res.status, 303);
  return b;
}

/** The manual clock starts at 2026-11-22 12:00 UTC; the member's zone is UTC. */
const TODAY = "2026-11-22";

Deno.test("GET /app", async (t) => {
  await using app = await makeApp();
  const b = await signedUpBrowser(app);

  await t.step("a new member is led to the starter columns", async () => {
    const page = await b.get("/app");
    assert.equal(page.status, 200);
    assertSelector(page.html, "main h1", { count: 1, text: /^Today$/ });
    const form = 'form[action="/app/columns"]';
    assertNamed(
      page.html,
      `${form} button[name="do"][value="templates_all"]`,
      "Add all starter columns",
    );
    assertSelector(page.html, `${form} input[type="hidden"][name="return"][value="/app"]`, {
      count: 1,
    });
    assertNamed(page.html, 'main a[href="/app/columns"]', "choose your own columns");
    assertNamed(page.html, 'nav[aria-label="App"] a[href="/app"][aria-current="page"]', "Today", 1);
  });
  await t.step("one control per column, fitted to its type, labelled by the column", async () => {
    const added = await b.post("/app/columns", {
      do: "templates_all",
      return: "/app",
      csrf: csrfOf((await b.get("/app")).html),
    });
    assert.equal(added.location, "/app", "from Today's empty state, back to Today");
    const html = (await b.get("/app")).html;
    assertSelector(html, '.notice[role="status"]', { count: 1, text: "Added 7 columns." });
    assertSelector(html, "form fieldset.entry", { count: 7 });
    assertNamed(html, 'input[type="text"][name="v.sleep_hours"]', "Sleep", 1);
    assertSelector(html, "#f-sleep_hours-unit", { count: 1, text: /^h$/ });
    assertNamed(html, '[role="radiogroup"]', "Mood", 1);
    assertSelector(html, '[role="radiogroup"] input[type="radio"][name="v.mood"]', { count: 5 });
    assertSelector(html, 'input[type="checkbox"][name="v.workout"][value="yes"]#f-workout', {
      count: 1,
    });
    assertSelector(html, "#f-meditation_min-unit", { count: 1, text: /^min$/ });
    assertNamed(html, 'fieldset.entry button[type="submit"][name="skip"]', "Skip day", 7);
    assertSelector(html, "h1", { count: 1 });
    assertSelector(html, "fieldset.entry .streak", { count: 7, text: "No streak yet" });
  });
  await t.step(
    "a day that is not a date, or in the future, is a 400 page, never a 500",
    async () => {
      for (const day of ["garbage", "2026-02-30", "2026-11-23", "9999-99-99"]) {
        const res = await b.get(`/app?day=${day}`);
        assert.equal(res.status, 400, day);
        assertSelector(res.html, "h1", { count: 1 });
      }
    },
  );
});

Deno.test("POST /app", async (t) => {
  await using app = await makeApp();
  const b = await withStarters(app);
  const csrf = csrfOf((await b.get("/app")).html);

  await t.step("Save writes the day, seen by /api/proxy getEntries, and redirects", async () => {
    const res = await b.post("/app", {
      csrf,
      day: TODAY,
      "v.sleep_hours": "7,5",
      "v.steps": "9000",
      "v.mood": "4",
      "v.workout": "yes",
      "v.weight": "",
    });
    assert.equal(res.status, 303);
    assert.equal(res.location, "/app");
    const [entry] = await entriesOf(b, TODAY);
    assert.deepEqual(entry.values, { sleep_hours: 7.5, steps: 9000, mood: 4, workout: true });
  });
  await t.step("the page is pre-filled, with the flash and the streak", async () => {
    const html = (await b.get("/app")).html;
    assertSelector(html, '.notice[role="status"]', { count: 1, text: "Saved today." });
    assertSelector(html, '#f-sleep_hours[value="7.5"]', { count: 1 });
    assertSelector(html, 'input[name="v.mood"][checked]', { count: 1 });
    assertSelector(html, 'input[name="v.mood"][value="4"][checked]', { count: 1 });
    assertSelector(html, "#f-workout[checked]", { count: 1 });
    assertSelector(html, "#s-sleep_hours", { count: 1, text: /^Streak: 1 logged day\b/ });
  });
  await t.step("the streak beside a column is get_streak's", async () => {
    const tool = await proxyAs(b, {
      action: "callTool",
      name: "get_streak",
      arguments: { metric: "meditation_min" },
    });
    await b.post("/app", { csrf, day: TODAY, "v.meditation_min": "15" });
    const after = await proxyAs(b, {
      action: "callTool",
      name: "get_streak",
      arguments: { metric: "meditation_min" },
    });
    const sc = after.structuredContent as { current: { length: number } };
    assert.equal((tool.structuredContent as { current: { length: number } }).current.length, 0);
    assert.equal(sc.current.length, 1);
    assertSelector((await b.get("/app")).html, "#s-meditation_min", { text: /^Streak: 1 day\b/ });
  });
  await t.step("Skip day marks one column skipped and keeps what was typed", async () => {
    const res = await b.post("/app", { csrf, day: TODAY, skip: "steps", "v.water_glasses": "6" });
    assert.equal(res.status, 303);
    const [entry] = await entriesOf(b, TODAY);
    assert.equal(entry.values.steps, "skip");
    assert.equal(entry.values.water_glasses, 6);
    assert.equal(entry.values.sleep_hours, 7.5, "untouched");
    assertText((await b.get("/app")).html, "Steps: skipped today.");
  });
  await t.step("unticking a done box records no; clearing a number clears it", async () => {
    await b.post("/app", {
      csrf,
      day: TODAY,
      "shown.workout": "1",
      "v.sleep_hours": "",
      "v.steps": "",
    });
    const [entry] = await entriesOf(b, TODAY);
    assert.equal(entry.values.workout, false);
    assert.equal(entry.values.sleep_hours, undefined);
    assert.equal(entry.values.steps, "skip", "an empty field does not undo a skip");
  });
  await t.step(
    "not a number: 422, message beside the field, typed input kept, nothing saved",
    async () => {
      const before = await entriesOf(b, TODAY);
      const res = await b.post("/app", {
        csrf,
        day: TODAY,
        "v.sleep_hours": "seven",
        "v.water_glasses": "7",
      });
      assert.equal(res.status, 422);
      assertSelector(res.html, "#f-sleep_hours-error", { count: 1, text: /^Not a number/ });
      const field = '#f-sleep_hours[value="seven"][aria-invalid="true"]';
      assertSelector(res.html, `${field}[aria-describedby~="f-sleep_hours-error"]`, { count: 1 });
      assertSelector(res.html, '#f-water_glasses[value="7"]', { count: 1 });
      assert.deepEqual(await entriesOf(b, TODAY), before);
    },
  );
  await t.step("out of range: the store's message beside the column", async () => {
    const res = await b.post("/app", { csrf, day: TODAY, "v.meditation_min": "5000" });
    assert.equal(res.status, 422);
    assertSelector(res.html, "#f-meditation_min-error", {
      count: 1,
      text: /^expected minutes from 0 to 1440/,
    });
  });
  await t.step("the day's note is saved, shown again, and limited", async () => {
    const res = await b.post("/app", { csrf, day: TODAY, note: "Slept badly.\r\nLong walk." });
    assert.equal(res.status, 303);
    const [entry] = await entriesOf(b, TODAY) as { note?: string }[];
    assert.equal(entry.note, "Slept badly.\nLong walk.");
    const [note] = assertSelector((await b.get("/app")).html, 'textarea[name="note"]', {
      count: 1,
    });
    assert.equal(note.textContent, "Slept badly.\nLong walk.");
    const long = await b.post("/app", { csrf, day: TODAY, note: "x".repeat(2001) });
    assert.equal(long.status, 422);
    assertSelector(long.html, "#f-note-error", { count: 1, text: /^At most 2000 characters/ });
  });
  await t.step("garbage never gives a 500", async () => {
    for (
      const fields of <Record<string, string>[]> [
        { csrf, day: "nope" },
        { csrf, day: TODAY, "v.mood": "11" },
        { csrf, day: TODAY, "v.mood": "<b>" },
        { csrf, day: TODAY, skip: "no_such_column" },
        { csrf, day: TODAY, "v.steps": "1e400" },
        { csrf, day: TODAY, "v.unknown": "1" },
      ]
    ) {
      const res = await b.post("/app", fields);
      assert.ok(res.status < 500, `${JSON.stringify(fields)} → ${res.status}`);
    }
  });
  await t.step("an oversized form is a 413 page", async () => {
    const res = await b.post("/app", { csrf, day: TODAY, note: "x".repeat(70 * 1024) });
    assert.equal(res.status, 413);
    assertSelector(res.html, "h1", { count: 1, text: /^That is too large$/ });
  });
  await t.step("a cross-site post is refused", async () => {
    const res = await b.post("/app", { day: TODAY, "v.steps": "1" }, {
      Origin: "https://evil.example",
    });
    assert.equal(res.status, 403);
  });
});

Deno.test("POST /app?day=…", async (t) => {
  await using app = await makeApp();
  const b = await withStarters(app);

  await t.step("back-fills a past day and returns to it", async () => {
    const page = await b.get("/app?day=2026-11-20");
    assert.equal(page.status, 200);
    assertSelector(page.html, "h1", { count: 1, text: /^Friday 20 November 2026$/ });
    const dayNav = 'nav[aria-label="Day"]';
    assertNamed(page.html, `${dayNav} a[href="/app?day=2026-11-19"]`, /Previous day/, 1);
    assertNamed(page.html, `${dayNav} a[href="/app?day=2026-11-21"]`, /Next day/, 1);
    const res = await b.post("/app?day=2026-11-20", {
      csrf: csrfOf(page.html),
      day: "2026-11-20",
      "v.steps": "4000",
    });
    assert.equal(res.status, 303);
    assert.equal(res.location, "/app?day=2026-11-20");
    const [entry] = await entriesOf(b, "2026-11-20");
    assert.deepEqual(entry.values, { steps: 4000 });
  });
  await t.step("today has no next-day link; yesterday's leads to /app", async () => {
    const today = (await b.get("/app")).html;
    assertNoText(today, "Next day");
    const yesterday = (await b.get(`/app?day=2026-11-21`)).html;
    assertNamed(yesterday, 'nav[aria-label="Day"] a[href="/app"]', /Next day/, 1);
  });
  await t.step("a streak at risk from a short day says to reach the goal, not to log", async () => {
    const csrf = csrfOf((await b.get("/app")).html);
    await b.post("/app?day=2026-11-21", { csrf, day: "2026-11-21", "v.steps": "9000" });
    assertSelector((await b.get("/app")).html, "#s-steps", { text: /^Streak: 1 logged day\b/ });
    await b.post("/app", { csrf, day: TODAY, "v.steps": "5000" }); // goal: at least 8,000
    const html = (await b.get("/app")).html;
    const [streak] = assertSelector(html, "#s-steps", {
      text: "· reach the goal today to keep it",
    });
    assert.doesNotMatch(streak.textContent ?? "", /log today/);
  });
  await t.step("today is the member's own day (time zone)", async () => {
    await proxyAs(b, { action: "updateProfile", timezone: "Pacific/Kiritimati" });
    // 12:00 UTC is 02:00 the next day at UTC+14.
    assertText((await b.get("/app")).html, "Monday 23 November 2026");
  });
});
