/**
 * Today's habit list over `app.request` (issue #24): the cells Today serves, and `POST
 * /app/habits` — a cell's form saved through the day form's parser and `saveEntry`, under the
 * same CSRF check and `proxy` quota as `POST /app`, answering 303 back to the row (a form) or 204
 * (the page's script), and a page with the reason for anything it refuses, never a 500.
 */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import { assertSelector, type Browser, csrfOf, proxyAs, signedUpBrowser } from "./_web.ts";

/** The manual clock starts at 2026-11-22 12:00 UTC (a Sunday); the member's zone is UTC. */
const TODAY = "2026-11-22";
const YESTERDAY = "2026-11-21";

async function member(app: TestApp): Promise<{ b: Browser; csrf: string }> {
  const b = await signedUpBrowser(app);
  assert.equal((await b.post("/app/columns", { do: "templates_all" })).status, 303);
  await proxyAs(b, { action: "createColumn", key: "floss", label: "Floss", type: "boolean" });
  return { b, csrf: csrfOf((await b.get("/app")).html) };
}

/** `assertSelector`, plus attributes every match must carry. */
function has(
  html: string,
  selector: string,
  want: { count?: number; text?: string | RegExp; attrs?: Record<string, string> } = {},
): void {
  const { attrs, ...rest } = want;
  for (const el of assertSelector(html, selector, rest)) {
    for (const [name, value] of Object.entries(attrs ?? {})) {
      assert.equal(el.getAttribute(name), value, `${selector} [${name}]`);
    }
  }
}

async function stored(b: Browser, day: string): Promise<Record<string, unknown>> {
  const res = await proxyAs(b, { action: "getEntries", start: day, end: day });
  return res.entries[0]?.values ?? {};
}

Deno.test("GET /app shows the habit list", async (t) => {
  await using app = await makeApp();
  const { b } = await member(app);
  await proxyAs(b, {
    action: "saveEntry",
    date: YESTERDAY,
    values: { workout: true, sleep_hours: 7.5, steps: "skip" },
  });
  const html = (await b.get("/app")).html;

  await t.step("one row per column, seven days, today last", () => {
    has(html, "section.habits h2", { count: 1, text: "Last 7 days" });
    has(html, "li.habit-row", { count: 8 });
    has(html, "#habit-workout .habit-cell", { count: 7 });
    has(html, "#habit-workout .habit-cell:last-child button", {
      count: 1,
      attrs: { "aria-label": "Workout, Sunday 22 November", "aria-pressed": "false" },
    });
  });
  await t.step("a yes/no cell names its column and day and says done with aria-pressed", () => {
    has(html, 'button[aria-label="Workout, Saturday 21 November"]', {
      count: 1,
      attrs: { "aria-pressed": "true", name: "set", value: "no" },
    });
    has(html, 'button[aria-label="Floss, Saturday 21 November"]', {
      count: 1,
      attrs: { "aria-pressed": "false", value: "yes", "aria-describedby": "habit-w-none" },
    });
  });
  await t.step("a number cell offers the day before's value; a skipped one says skipped", () => {
    has(html, "#habit-sleep_hours details:last-child button[name=quick]", {
      count: 1,
      text: "Same as yesterday (7.5)",
      attrs: { value: "7.5" },
    });
    has(html, "#habit-water_glasses details:last-child button[data-plus]", {
      count: 1,
      text: "+1",
      attrs: { value: "1" },
    });
    has(html, 'summary[aria-label="Steps, Saturday 21 November"]', {
      count: 1,
      attrs: { "aria-describedby": "habit-w-skip" },
    });
    has(html, "#habit-w-skip", { count: 1, text: "skipped" });
  });
  await t.step("a past day's page has only its form", async () => {
    const past = (await b.get(`/app?day=${YESTERDAY}`)).html;
    has(past, "section.habits", { count: 0 });
  });
});

Deno.test("POST /app/habits", async (t) => {
  await using app = await makeApp();
  const { b, csrf } = await member(app);
  const cellPost = (fields: Record<string, string>, headers?: Record<string, string>) =>
    b.post("/app/habits", { csrf, ...fields }, headers);

  await t.step("a form's tap saves the day and comes back to the row (303)", async () => {
    const res = await cellPost({ day: TODAY, column: "floss", set: "yes" });
    assert.equal(res.status, 303);
    assert.equal(res.location, "/app#habit-floss");
    assert.match(res.res.headers.get("ratelimit-policy") ?? "", /"proxy"/);
    assert.equal((await stored(b, TODAY)).floss, true);
    const page = await b.get("/app");
    has(page.html, ".notice.success", { count: 1, text: /Floss, Sunday 22 November: done\./ });
    has(page.html, 'button[aria-label="Floss, Sunday 22 November"]', {
      count: 1,
      attrs: { "aria-pressed": "true" },
    });
  });
  await t.step("the post names the state it sets, so sending it twice keeps it", async () => {
    await cellPost({ day: YESTERDAY, column: "floss", set: "yes" });
    await cellPost({ day: YESTERDAY, column: "floss", set: "yes" });
    assert.equal((await stored(b, YESTERDAY)).floss, true);
    await cellPost({ day: YESTERDAY, column: "floss", set: "no" });
    assert.equal((await stored(b, YESTERDAY)).floss, false);
  });
  await t.step("the page's script (Sec-Fetch-Mode: cors) gets 204 and no flash", async () => {
    const res = await cellPost({ day: TODAY, column: "workout", set: "yes" }, {
      Origin: b.origin,
      "Sec-Fetch-Mode": "cors",
      "Sec-Fetch-Site": "same-origin",
    });
    assert.equal(res.status, 204);
    // (a flash left by an earlier redirect may be cleared; none is set)
    const flashes = res.res.headers.getSetCookie().filter((c) => /^rt_flash=[^;]/.test(c));
    assert.deepEqual(flashes, []);
    assert.equal((await stored(b, TODAY)).workout, true);
  });
  await t.step("numbers, same as yesterday, skip", async () => {
    await cellPost({ day: TODAY, column: "sleep_hours", value: "7,5" });
    await cellPost({ day: TODAY, column: "water_glasses", value: "", quick: "3" });
    await cellPost({ day: TODAY, column: "steps", set: "skip" });
    const day = await stored(b, TODAY);
    assert.deepEqual([day.sleep_hours, day.water_glasses, day.steps], [7.5, 3, "skip"]);
    await cellPost({ day: TODAY, column: "sleep_hours", value: "" });
    assert.equal((await stored(b, TODAY)).sleep_hours, undefined, "an emptied field clears");
  });
  await t.step("set=clear takes a skip or a yes/no answer back to nothing logged", async () => {
    // Issue #25, defect 8: an emptied field cannot clear a skip, and a yes/no cell only toggles.
    await cellPost({ day: TODAY, column: "steps", set: "clear" });
    await cellPost({ day: TODAY, column: "workout", set: "clear" });
    const day = await stored(b, TODAY);
    assert.deepEqual([day.steps, day.workout], [undefined, undefined]);
  });
  await t.step(
    "a value that is not one: 422, Today with the cell open and the message",
    async () => {
      const res = await cellPost({ day: TODAY, column: "weight", value: "heavy" });
      assert.equal(res.status, 422);
      has(res.html, "#habit-weight details[open] .field-error", {
        count: 1,
        text: /Not a number/,
      });
      has(res.html, `#hc-weight-${TODAY}`, {
        count: 1,
        attrs: { value: "heavy", "aria-invalid": "true" },
      });
      const outOfRange = await cellPost({ day: TODAY, column: "mood", value: "9" });
      assert.equal(outOfRange.status, 422);
      has(outOfRange.html, "#habit-mood details[open] .field-error", { count: 1 });
      assert.equal((await stored(b, TODAY)).weight, undefined);
    },
  );
  await t.step("refused with a page, never a 500", async () => {
    const cases: [Record<string, string>, number, RegExp][] = [
      [{ day: "2026-11-23", column: "floss", set: "yes" }, 400, /after/],
      [{ day: "someday", column: "floss", set: "yes" }, 400, /not a real/],
      [{ column: "floss", set: "yes" }, 400, /names no day/],
      [{ day: TODAY, column: "nope", set: "yes" }, 400, /no active column/],
      [{ day: TODAY, column: "floss", set: "maybe" }, 400, /set=yes/],
    ];
    for (const [fields, status, message] of cases) {
      const res = await cellPost(fields);
      assert.equal(res.status, status, JSON.stringify(fields));
      assert.match(res.html, message);
      assert.match(res.res.headers.get("content-type") ?? "", /text\/html/);
    }
  });
  await t.step(
    "CSRF: another site's post is refused; so is one with no Origin and no token",
    async () => {
      const cross = await cellPost({ day: TODAY, column: "floss", set: "no" }, {
        Origin: "https://evil.example",
      });
      assert.equal(cross.status, 403);
      const bare = await b.post("/app/habits", { day: TODAY, column: "floss", set: "no" }, {});
      assert.equal(bare.status, 403);
      assert.equal((await stored(b, TODAY)).floss, true);
    },
  );
  await t.step("signed out: to sign-in; a GET of the address: to Today", async () => {
    const res = await b.get("/app/habits");
    assert.equal(res.status, 303);
    assert.equal(res.location, "/app");
  });
});
