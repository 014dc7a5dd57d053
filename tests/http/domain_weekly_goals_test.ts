/**
 * Weekly goals report this week's progress (issue #20 item 9): "k of n this week" on Today and
 * History instead of "Streak: 0 weeks", as the landing page promises ("3 of 3 this week"). The
 * figures are counted here from the days logged, and match `get_streak`'s `current_week`.
 */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import {
  type Browser,
  csrfOf,
  definition,
  proxyAs,
  querySelectorAll,
  signedUpBrowser,
  textOf,
} from "./_web.ts";

// The test clock is 2026-11-22T12:00Z: in London a Sunday, the last day of the ISO week.
const TODAY = "2026-11-22";

async function workoutMember(t: TestApp, name: string, yesDays: string[]): Promise<Browser> {
  const b = await signedUpBrowser(t, name);
  await proxyAs(b, { action: "updateProfile", timezone: "Europe/London" });
  const page = await b.get("/app/columns");
  // the Workout starter: yes/no, goal "done" 3 times a week
  await b.post("/app/columns", { csrf: csrfOf(page.html), template: "workout" });
  for (const date of yesDays) {
    await proxyAs(b, { action: "saveEntry", date, values: { workout: true } });
  }
  return b;
}

/** The text of Today's streak line of the workout column, tags removed. */
async function todayLine(b: Browser): Promise<string> {
  const { html } = await b.get("/app");
  const [line] = querySelectorAll(html, "span.streak#s-workout");
  assert.ok(line, "Today shows the workout streak line");
  return textOf(line).replace(/\s+/g, " ").trim();
}

async function currentWeek(b: Browser) {
  const out = await proxyAs(b, {
    action: "callTool",
    name: "get_streak",
    arguments: { metric: "workout" },
  }) as { structuredContent: { current_week: { done: number; target: number } } };
  return out.structuredContent.current_week;
}

Deno.test("domain: a weekly goal shows “k of n this week”", async (t) => {
  await using app = await makeApp();

  await t.step("two met weeks and 2 done this week → 2 of 3, streak 2 weeks", async () => {
    const b = await workoutMember(app, "weekly", [
      "2026-11-02",
      "2026-11-04",
      "2026-11-06",
      "2026-11-09",
      "2026-11-11",
      "2026-11-13",
      "2026-11-18",
      "2026-11-20",
    ]);
    assert.deepEqual(await currentWeek(b), {
      start: "2026-11-16",
      end: TODAY,
      done: 2,
      target: 3,
      remaining_days: 1,
      state: "pending",
    });
    assert.match(await todayLine(b), /^2 of 3 this week · streak 2 weeks · Goal: done \(3 times/);
    const { html } = await b.get("/app/history?column=workout");
    assert.equal(definition(html, "Weekly goal"), "2 of 3 this week");
  });

  await t.step("a broken run says this week's count, not “Streak: 0 weeks”", async () => {
    const b = await workoutMember(app, "broken", [
      "2026-11-02",
      "2026-11-04",
      "2026-11-06",
      "2026-11-10",
      "2026-11-18",
    ]);
    const line = await todayLine(b);
    assert.doesNotMatch(line, /0 weeks/);
    assert.match(line, /^1 of 3 this week · best 1 · Goal:/);
  });

  await t.step("a met week reads 3 of 3 this week", async () => {
    const b = await workoutMember(app, "met", ["2026-11-16", "2026-11-18", "2026-11-20"]);
    assert.match(await todayLine(b), /^3 of 3 this week · streak 1 week · Goal:/);
  });
});
