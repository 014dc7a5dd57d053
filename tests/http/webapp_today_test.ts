/** Today (`/app`) and Columns (`/app/columns`) pages over `app.request` (issue #11 items 2–3). */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import { type Browser, count, csrfOf, proxyAs, signedUpBrowser } from "./_web.ts";

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
    assert.match(page.html, /<h1>Today<\/h1>/);
    assert.match(page.html, />\s*Add all starter columns\s*</);
    assert.match(page.html, /<input type="hidden" name="return" value="\/app"\/>/);
    assert.match(page.html, /href="\/app\/columns"/);
    assert.match(page.html, /<a href="\/app" aria-current="page">Today<\/a>/);
  });
  await t.step("one control per column, fitted to its type, labelled by the column", async () => {
    const added = await b.post("/app/columns", {
      do: "templates_all",
      return: "/app",
      csrf: csrfOf((await b.get("/app")).html),
    });
    assert.equal(added.location, "/app", "from Today's empty state, back to Today");
    const html = (await b.get("/app")).html;
    assert.match(html, /Added 7 columns\./);
    assert.equal(count(html, /<fieldset class="entry col-\d">/), 7);
    assert.match(html, /<legend id="l-sleep_hours">Sleep<\/legend>/);
    assert.match(html, /id="f-sleep_hours" name="v.sleep_hours" aria-labelledby="l-sleep_hours"/);
    assert.match(html, /<span class="unit" id="f-sleep_hours-unit">h<\/span>/);
    assert.match(html, /role="radiogroup" aria-labelledby="l-mood"/);
    assert.equal(count(html, /type="radio" name="v.mood"/), 5);
    assert.match(html, /type="checkbox" value="yes" id="f-workout" name="v.workout"/);
    assert.match(html, /<span class="unit" id="f-meditation_min-unit">min<\/span>/);
    assert.equal(count(html, />Skip day<\/button>/), 7);
    assert.equal(count(html, /<h1[ >]/), 1);
    assert.equal(count(html, /No streak yet/), 7);
  });
  await t.step(
    "a day that is not a date, or in the future, is a 400 page, never a 500",
    async () => {
      for (const day of ["garbage", "2026-02-30", "2026-11-23", "9999-99-99"]) {
        const res = await b.get(`/app?day=${day}`);
        assert.equal(res.status, 400, day);
        assert.match(res.html, /<h1>/);
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
    assert.match(html, /Saved today\./);
    assert.match(html, /value="7.5" id="f-sleep_hours"/);
    assert.match(html, /type="radio" name="v.mood" value="4" checked/);
    assert.match(html, /type="checkbox" value="yes" checked id="f-workout"/);
    assert.match(html, /id="s-sleep_hours">\s*Streak: 1 logged day/);
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
    assert.match((await b.get("/app")).html, /id="s-meditation_min">\s*Streak: 1 day</);
  });
  await t.step("Skip day marks one column skipped and keeps what was typed", async () => {
    const res = await b.post("/app", { csrf, day: TODAY, skip: "steps", "v.water_glasses": "6" });
    assert.equal(res.status, 303);
    const [entry] = await entriesOf(b, TODAY);
    assert.equal(entry.values.steps, "skip");
    assert.equal(entry.values.water_glasses, 6);
    assert.equal(entry.values.sleep_hours, 7.5, "untouched");
    assert.match((await b.get("/app")).html, /Steps: skipped today\./);
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
      assert.match(res.html, /id="f-sleep_hours-error">Not a number/);
      assert.match(res.html, /value="seven"/);
      assert.match(res.html, /value="7" id="f-water_glasses"/);
      assert.match(res.html, /aria-invalid="true"/);
      assert.deepEqual(await entriesOf(b, TODAY), before);
    },
  );
  await t.step("out of range: the store's message beside the column", async () => {
    const res = await b.post("/app", { csrf, day: TODAY, "v.meditation_min": "5000" });
    assert.equal(res.status, 422);
    assert.match(res.html, /id="f-meditation_min-error">expected minutes from 0 to 1440/);
  });
  await t.step("the day's note is saved, shown again, and limited", async () => {
    const res = await b.post("/app", { csrf, day: TODAY, note: "Slept badly.\r\nLong walk." });
    assert.equal(res.status, 303);
    const [entry] = await entriesOf(b, TODAY) as { note?: string }[];
    assert.equal(entry.note, "Slept badly.\nLong walk.");
    assert.match((await b.get("/app")).html, /<textarea[^>]*>Slept badly.\nLong walk.<\/textarea>/);
    const long = await b.post("/app", { csrf, day: TODAY, note: "x".repeat(2001) });
    assert.equal(long.status, 422);
    assert.match(long.html, /id="f-note-error">At most 2000 characters/);
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
    assert.match(res.html, /<h1>That is too large<\/h1>/);
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
    assert.match(page.html, /<h1>Friday 20 November 2026<\/h1>/);
    assert.match(page.html, /href="\/app\?day=2026-11-19"/);
    assert.match(page.html, /href="\/app\?day=2026-11-21"/);
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
    assert.doesNotMatch(today, /Next day/);
    assert.match((await b.get(`/app?day=2026-11-21`)).html, /<a class="button" href="\/app">/);
  });
  await t.step("a streak at risk from a short day says to reach the goal, not to log", async () => {
    const csrf = csrfOf((await b.get("/app")).html);
    await b.post("/app?day=2026-11-21", { csrf, day: "2026-11-21", "v.steps": "9000" });
    assert.match((await b.get("/app")).html, /id="s-steps">\s*Streak: 1 logged day</);
    await b.post("/app", { csrf, day: TODAY, "v.steps": "5000" }); // goal: at least 8,000
    const html = (await b.get("/app")).html;
    assert.match(html, /id="s-steps">[^<]*· reach the goal today to keep it/);
    assert.doesNotMatch(html, /id="s-steps">[^<]*log today/);
  });
  await t.step("today is the member's own day (time zone)", async () => {
    await proxyAs(b, { action: "updateProfile", timezone: "Pacific/Kiritimati" });
    // 12:00 UTC is 02:00 the next day at UTC+14.
    assert.match((await b.get("/app")).html, /Monday 23 November 2026/);
  });
});
