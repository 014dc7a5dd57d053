/**
 * Days that count as done (issue #20 item 9): a yes/no column's "no" is never done — with or
 * without a goal — in streaks, the calendar, habit strength, goal progress, aggregates and the
 * tools. A Daylio activity (imported without a goal) and a "Coffee" column left at the Columns
 * form's default are checked over HTTP; every expected figure is recomputed here from the raw days.
 */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { type Browser, csrfOf, proxyAs, signedUpBrowser } from "./_web.ts";

// The test clock is 2026-11-22T12:00Z; in London that is the member's today.
const TODAY = "2026-11-22";
const dateOf = (daysAgo: number) =>
  new Date(Date.parse(`${TODAY}T00:00:00Z`) - daysAgo * 86_400_000).toISOString().slice(0, 10);

/** 365 days, oldest first: `null` no entry, else whether coffee was tagged (130 yes, today yes). */
function coffeeDays(): (boolean | null)[] {
  const out: (boolean | null)[] = [];
  let yes = 0;
  for (let i = 0; i < 365; i++) {
    const logged = i % 17 !== 3 && i % 23 !== 5; // 328 logged days, today among them
    const tagged = i === 364 || (logged && yes < 129 && (i * 7) % 13 < 6);
    if (logged && tagged) yes++;
    out.push(logged ? tagged : null);
  }
  return out;
}

/** Runs and counts by hand: a "no" ends the run, a day without an entry does not (neutral). */
function byHand(days: (boolean | null)[]) {
  let run = 0, best = 0;
  for (const d of days) {
    if (d === true) best = Math.max(best, ++run);
    else if (d === false) run = 0;
  }
  return {
    yes: days.filter((d) => d === true).length,
    no: days.filter((d) => d === false).length,
    none: days.filter((d) => d === null).length,
    current: run,
    best,
  };
}

function daylioCsv(days: (boolean | null)[]): string {
  const lines = ["full_date,date,weekday,time,mood,activities,note_title,note"];
  days.forEach((d, i) => {
    if (d === null) return;
    lines.push(`${dateOf(364 - i)},x,x,20:00,good,${d ? "coffee | reading" : "reading"},,`);
  });
  return lines.join("\n") + "\n";
}

async function tool(b: Browser, name: string, args: Record<string, unknown>) {
  const out = await proxyAs(b, { action: "callTool", name, arguments: args }) as {
    isError?: boolean;
    // deno-lint-ignore no-explicit-any
    structuredContent: any;
  };
  assert.ok(!out.isError, JSON.stringify(out));
  return out.structuredContent;
}

/** The calendar's accessible name (the second `role="img"` on History). */
function calendarName(html: string): string {
  const names = [...html.matchAll(/<svg[^>]*role="img"[^>]*>\s*<title[^>]*>([^<]*)<\/title>/g)]
    .map((m) => m[1]);
  const calendar = names.find((n) => n.includes("calendar"));
  assert.ok(calendar, "the page has a calendar");
  return calendar;
}

Deno.test("domain: a yes/no column's “no” is never a done day", async (t) => {
  await using app = await makeApp();
  const days = coffeeDays();
  const expected = byHand(days);
  assert.equal(expected.yes, 130);
  assert.equal(expected.yes + expected.no, 328);

  const b = await signedUpBrowser(app, "daylio");
  await proxyAs(b, { action: "updateProfile", timezone: "Europe/London" });
  await proxyAs(b, { action: "importRecord", format: "daylio", csv: daylioCsv(days) });

  await t.step("the imported activity has no goal, and its “no” days are misses", async () => {
    const cols = await tool(b, "list_columns", {});
    const coffee = cols.columns.find((c: { key: string }) => c.key === "coffee");
    assert.equal(coffee.goal, null);
    // A calendar per year (issue #25): Jan 1 … Nov 22 of 2026 is the last 326 days, the other
    // 39 days of the record are the end of 2025's calendar, whose earlier days have no entry.
    const counts = (e: ReturnType<typeof byHand>, extraNone = 0) =>
      `done ${e.yes}, missed ${e.no}, skipped 0, no data ${e.none + extraNone}`;
    const { html } = await b.get("/app/history?column=coffee&range=365");
    assert.match(calendarName(html), new RegExp(`of 2026 .*: ${counts(byHand(days.slice(39)))}$`));
    const last = await b.get("/app/history?column=coffee&range=365&year=2025");
    assert.match(
      calendarName(last.html),
      new RegExp(`of 2025 .*: ${counts(byHand(days.slice(0, 39)), 365 - 39)}$`),
    );
  });

  await t.step("get_streak counts yes days only", async () => {
    const s = await tool(b, "get_streak", { metric: "coffee" });
    assert.equal(s.current.length, expected.current);
    assert.equal(s.longest.length, expected.best);
    assert.ok(
      expected.best < 20,
      `a run of yes days, not the ${expected.yes + expected.no} logged`,
    );
  });

  await t.step("get_habit_strength reads a “no” as 0", async () => {
    const h = await tool(b, "get_habit_strength", { metric: "coffee" });
    // Loop's score by hand: s = s·m + v·(1 − m), m = 0.5^(1/13), v = 1 on yes and 0 on no; days
    // without an entry leave it unchanged (an imported activity is missing-neutral).
    const m = 0.5 ** (1 / 13);
    let score = 0;
    for (const d of days) if (d !== null) score = score * m + (d ? 1 - m : 0);
    assert.ok(Math.abs(h.score - score) < 0.006, `score ${h.score}, by hand ${score}`);
    assert.ok(h.score < 0.7, `score ${h.score}`);
  });

  await t.step("get_aggregates' rate is the share of yes days", async () => {
    const a = await tool(b, "get_aggregates", {
      metric: "coffee",
      agg: "rate",
      bucket: "month",
      start: dateOf(364),
      end: TODAY,
    });
    const total = a.buckets.reduce((s: number, r: { n_days: number }) => s + r.n_days, 0);
    const yes = a.buckets.reduce(
      (s: number, r: { value: number | null; n_days: number }) =>
        s + Math.round((r.value ?? 0) * r.n_days),
      0,
    );
    assert.equal(total, expected.yes + expected.no);
    assert.equal(yes, expected.yes);
  });

  await t.step("a “Coffee” column left at the form's default goal gets “Done”", async () => {
    const c = await signedUpBrowser(app, "coffee");
    const page = await c.get("/app/columns");
    const select = /<select[^>]*id="a-goal_op"[^>]*>([\s\S]*?)<\/select>/.exec(page.html);
    assert.ok(select, "the add form has a goal kind");
    const chosen = /<option value="([^"]+)" selected/.exec(select[1]);
    assert.ok(chosen, "a goal kind is preselected");
    const res = await c.post("/app/columns", {
      csrf: csrfOf(page.html),
      do: "add",
      label: "Coffee",
      type: "boolean",
      direction: "neutral",
      goal_op: chosen[1],
      goal_per: "day",
    });
    assert.equal(res.status, 303, res.html);
    const cols = await tool(c, "list_columns", {});
    const coffee = cols.columns.find((col: { key: string }) => col.key === "coffee");
    assert.deepEqual(coffee.goal, { op: "true", value: null, per: "day", times: null });
    // a week of "no" with a yes today: a streak of 1, and 6 of 7 days below the goal
    for (let i = 6; i >= 1; i--) {
      await proxyAs(c, { action: "saveEntry", date: dateOf(i), values: { coffee: false } });
    }
    await proxyAs(c, { action: "saveEntry", date: TODAY, values: { coffee: true } });
    const s = await tool(c, "get_streak", { metric: "coffee" });
    assert.equal(s.current.length, 1);
    const g = await tool(c, "get_goal_progress", { period: "week", date: TODAY });
    const row = g.goals.find((r: { metric: string }) => r.metric === "coffee");
    assert.ok(row.met_days < row.eligible_days);
  });

  await t.step("a yes/no column created with “No goal” still counts only yes days", async () => {
    const c = await signedUpBrowser(app, "nogoal");
    await proxyAs(c, {
      action: "createColumn",
      key: "coffee",
      label: "Coffee",
      type: "boolean",
      goal: null,
      missing_policy: "breaks",
    });
    for (let i = 6; i >= 0; i--) {
      const yes = i === 0 || i === 3;
      await proxyAs(c, { action: "saveEntry", date: dateOf(i), values: { coffee: yes } });
    }
    const s = await tool(c, "get_streak", { metric: "coffee" });
    assert.equal(s.current.length, 1);
    assert.equal(s.longest.length, 1);
    const { html } = await c.get("/app/history?column=coffee");
    assert.match(calendarName(html), /done 2, missed 5, skipped 0/);
  });
});
