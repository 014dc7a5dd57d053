/**
 * The History (`/app/history`) and Coach (`/app/insights`) pages over HTTP (issue #11 §3, §5): a
 * member signs up in the browser, logs days through `/api/proxy`, and the pages state the numbers
 * an agent gets from the tools — recomputed here from the raw values, not read from the analytics.
 */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import {
  assertNamed,
  assertSelector,
  assertText,
  type Browser,
  nameOf,
  proxyAs,
  querySelectorAll,
  signedUpBrowser,
  tableRows,
} from "./_web.ts";

// The test clock is 2026-11-22T12:00Z; on Kiritimati (UTC+14) the member's today is Nov 23.
const TODAY = "2026-11-23";
const dayBefore = (n: number) =>
  new Date(Date.parse(`${TODAY}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

/** Sleep hours for the 12 days ending today (oldest first); `null` missing, "skip" skipped. */
const SLEEP: (number | "skip" | null)[] = [7.5, 8.2, null, 5.5, 8.9, "skip", 6, 8, 7.1, 8.4, 9, 8];
const STEPS = [4000, 12000, 0, 8000];

async function memberWithData(t: TestApp): Promise<Browser> {
  const b = await signedUpBrowser(t, "hist");
  await proxyAs(b, { action: "updateProfile", timezone: "Pacific/Kiritimati" });
  await proxyAs(b, {
    action: "createColumn",
    key: "sleep",
    label: "Sleep",
    type: "number",
    unit: "h",
    direction: "higher_better",
    goal: { op: "at_least", value: 8, per: "day", times: null },
    missing_policy: "breaks",
  });
  await proxyAs(b, {
    action: "createColumn",
    key: "steps",
    label: "Steps",
    type: "integer",
    unit: "steps",
  });
  for (const [i, v] of SLEEP.entries()) {
    const date = dayBefore(SLEEP.length - 1 - i);
    if (v === "skip") await proxyAs(b, { action: "skipDay", date, columns: ["sleep"] });
    else if (v !== null) await proxyAs(b, { action: "saveEntry", date, values: { sleep: v } });
  }
  for (const [i, v] of STEPS.entries()) {
    await proxyAs(b, {
      action: "saveEntry",
      date: dayBefore(STEPS.length - 1 - i),
      values: { steps: v },
    });
  }
  await proxyAs(b, { action: "saveEntry", date: TODAY, values: {}, note: "Slept well" });
  return b;
}

/** The accessible name of each `role="img"` SVG (its `<title>`), in page order. */
function imgNames(html: string): string[] {
  return querySelectorAll(html, 'svg[role="img"]').map(nameOf);
}

/** The days the History table links to Today, in table order. */
function dayLinks(html: string): string[] {
  return querySelectorAll(html, 'table.days tbody th[scope="row"] a[href^="/app?day="]')
    .map((a) => (a.getAttribute("href") ?? "").slice("/app?day=".length));
}

Deno.test("GET /app/history", async (t) => {
  await using app = await makeApp();

  await t.step("signed out → 303 to /signin with the page as next", async () => {
    const res = await app.request("/app/history?column=sleep");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/signin?next=%2Fapp%2Fhistory%3Fcolumn%3Dsleep");
  });

  await t.step("no columns → a link to Columns, no chart", async () => {
    const b = await signedUpBrowser(app, "empty");
    const { status, html } = await b.get("/app/history");
    assert.equal(status, 200);
    assertSelector(html, "h1", { count: 1, text: /^History$/ });
    assertSelector(html, 'main a[href="/app/columns"]');
    assert.equal(imgNames(html).length, 0);
  });

  const b = await memberWithData(app);

  await t.step("the chart is named by its label and states the numbers", async () => {
    const { status, html } = await b.get("/app/history?column=sleep");
    assert.equal(status, 200);
    const values = SLEEP.filter((v): v is number => typeof v === "number");
    const mean = values.reduce((a, v) => a + v, 0) / values.length;
    // Eligible for the goal: days from the first entry on, skips excluded, a missing day counted.
    const eligible = SLEEP.filter((v) => v !== "skip").length;
    const met = values.filter((v) => v >= 8).length;
    const [chart, calendar] = imgNames(html);
    assert.equal(
      chart,
      `Sleep — last 30 days: average ${Math.round(mean * 10) / 10} h, ` +
        `min ${Math.min(...values)} h (15 November), max ${Math.max(...values)} h (22 November), ` +
        `goal at least 8 h met on ${met} of ${eligible} days, logged on ${values.length} of 30 days`,
    );
    assert.match(chart, /^Sleep — /);
    assert.equal(
      calendar,
      // Jan 1 to Nov 23 is 327 days of 2026.
      `Sleep — calendar of 2026 (1 January to 23 November 2026): ` +
        `done ${met}, missed ${values.length - met}, skipped 1, no data ${327 - values.length - 1}`,
    );
    // The visible summary repeats the numbers (aria-describedby target).
    const facts = `goal at least 8 h met on ${met} of ${eligible} days`;
    assertSelector(html, 'svg[role="img"][aria-describedby="chart-facts"]', { count: 1 });
    assertNamed(html, "#chart-facts li", facts, 1);
  });

  await t.step("the streaks are get_streak's", async () => {
    const tool = await proxyAs(b, {
      action: "callTool",
      name: "get_streak",
      arguments: { metric: "sleep" },
    }) as { structuredContent: { current: { length: number }; longest: { length: number } } };
    const { html } = await b.get("/app/history?column=sleep");
    // By hand: 8.4, 9, 8 are the last three days (all ≥ 8); the best run is also 3.
    assert.equal(tool.structuredContent.current.length, 3);
    const streak = (term: string) =>
      querySelectorAll(html, ".streaks dt").filter((dt) => dt.textContent === term)
        .map((dt) => dt.nextElementSibling as Element);
    const [current] = streak("Current streak");
    assert.equal(current?.querySelector("strong")?.textContent, "3");
    assert.equal(current?.textContent, "3 days");
    const [best] = streak("Best streak");
    assert.equal(best?.textContent, `${tool.structuredContent.longest.length} days`);
  });

  await t.step(
    "the table links each day to Today, most recent first, from the member's today",
    async () => {
      const { html } = await b.get("/app/history?column=sleep");
      const links = dayLinks(html);
      assert.equal(links[0], TODAY);
      assert.equal(links.length, SLEEP.length, "from the first entry to today");
      assert.deepEqual(links, [...links].sort().reverse());
      assertSelector(html, "table.days td.note", { text: /^(Slept well)?$/ });
      assertNamed(html, "table.days td.note", "Slept well", 1);
      assertNamed(html, "table.days td", "skipped");
    },
  );

  await t.step(
    "a column with nothing logged says so; archived columns keep their history",
    async () => {
      await proxyAs(b, { action: "createColumn", key: "mood", label: "Mood", type: "scale" });
      const { status, html } = await b.get("/app/history?column=mood");
      assert.equal(status, 200);
      assertText(html, "Nothing is logged in Mood yet");
      assert.equal(
        imgNames(html)[0],
        "Mood — last 30 days: nothing logged, logged on 0 of 30 days",
      );
      assert.deepEqual(dayLinks(html), [], "no table of days without entries");
      assertSelector(html, "table.days", { count: 0 });
      await proxyAs(b, { action: "archiveColumn", key: "steps" });
      const archived = await b.get("/app/history?column=steps");
      assert.match(imgNames(archived.html)[0], /^Steps — last 30 days: total /);
      const picker = 'nav[aria-label="Columns"] a[aria-current="page"]';
      assertNamed(archived.html, picker, "Steps archived", 1);
      assertSelector(archived.html, `${picker} .tag`, { count: 1, text: /^archived$/ });
      await proxyAs(b, { action: "archiveColumn", key: "steps", archived: false });
    },
  );

  await t.step("range links work without JS; 365 and unknown values", async () => {
    const { html } = await b.get("/app/history?column=steps&range=90");
    const words = { 30: "30 days", 90: "90 days", 365: "1 year", all: "All time" };
    for (const [r, name] of Object.entries(words)) {
      const link = `nav[aria-label="Chart range"] a[href="/app/history?column=steps&range=${r}"]`;
      assertNamed(html, link, name, 1);
    }
    assertNamed(html, 'nav[aria-label="Chart range"] a[aria-current="page"]', "90 days", 1);
    const total = STEPS.reduce((a, v) => a + v, 0);
    assert.match(
      imgNames(html)[0],
      new RegExp(
        `^Steps — last 90 days: total ${total.toLocaleString("en-US")} steps, average ${
          (total / STEPS.length).toLocaleString("en-US")
        } steps a logged day`,
      ),
    );
    const year = await b.get("/app/history?column=steps&range=365");
    assert.match(imgNames(year.html)[0], /^Steps — last 365 days: /);
    const bad = await b.get("/app/history?column=nope&range=7");
    assert.equal(bad.status, 200);
    assert.match(
      imgNames(bad.html)[0],
      /^Sleep — last 30 days: /,
      "falls back to the first column",
    );
  });
});

Deno.test("GET /app/insights", async (t) => {
  await using app = await makeApp();

  await t.step("signed out → 303 to /signin", async () => {
    const res = await app.request("/app/insights");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/signin?next=%2Fapp%2Finsights");
  });

  await t.step("no columns → says so and links to Columns", async () => {
    const b = await signedUpBrowser(app, "quiet");
    const { status, html } = await b.get("/app/insights");
    assert.equal(status, 200);
    assertSelector(html, "h1", { count: 1, text: /^Coach$/ });
    assertText(html, "The coach has nothing to say yet");
    assertSelector(html, 'main a[href="/app/columns"]');
  });

  await t.step(
    "with a few days logged → what get_coach_insights returns, and how many days are missing",
    async () => {
      const b = await memberWithData(app);
      const tool = await proxyAs(b, {
        action: "callTool",
        name: "get_coach_insights",
        arguments: { limit: 50, since: "2025-11-23" },
      }) as { structuredContent: { insights: unknown[] } };
      assert.deepEqual(tool.structuredContent.insights, []);
      const { html } = await b.get("/app/insights");
      // Days with any value in the last 180: every sleep value and the steps days (overlapping).
      const logged = new Set([
        ...SLEEP.flatMap((
          v,
          i,
        ) => (typeof v === "number" ? [dayBefore(SLEEP.length - 1 - i)] : [])),
        ...STEPS.map((_v, i) => dayBefore(STEPS.length - 1 - i)),
      ]).size;
      assertText(html, new RegExp(`It needs ${30 - logged} more logged days?`));
      assertText(html, `you have logged ${logged} of the last 180`);
    },
  );
});

/** Today's streak beside column `key`, e.g. "3 days" (a weekly goal: "1 of 1 this week · streak 3 weeks"). */
function todayStreak(html: string, key: string): string {
  const m = new RegExp(`id="s-${key}">[^<]*?(?:Streak: |· streak )(\\d+ [a-z ]+?)(?: ·|<)`)
    .exec(html);
  assert.ok(m, `Today shows a streak for ${key}`);
  return m[1];
}

/** History's current streak, e.g. "3 days". */
function historyStreak(html: string): string {
  const m = /<dt>Current streak<\/dt>\s*<dd><strong>(\d+)<\/strong> ([a-z ]+)<\/dd>/.exec(html);
  assert.ok(m, "History shows the current streak");
  return `${m[1]} ${m[2]}`;
}

Deno.test("GET /app and GET /app/history", async (t) => {
  await using app = await makeApp();
  const b = await signedUpBrowser(app, "words");
  const columns = [
    // A missing day breaks it: get_streak counts days.
    { key: "read", type: "boolean", missing_policy: "breaks", goal: null, words: "days" },
    // A missing day breaks nothing: get_streak counts measurements, the logged days.
    { key: "weight", type: "number", missing_policy: "neutral", goal: null, words: "logged days" },
    {
      key: "gym",
      type: "boolean",
      missing_policy: "breaks",
      goal: { op: "true", value: null, per: "week", times: 1 },
      words: "weeks",
    },
  ];
  for (const c of columns) {
    const { words: _, ...spec } = c;
    await proxyAs(b, { action: "createColumn", label: c.key, ...spec });
  }
  for (let i = 20; i >= 0; i--) {
    const date = new Date(Date.parse("2026-11-22T00:00:00Z") - i * 86_400_000)
      .toISOString().slice(0, 10);
    const values = i % 3 === 0 ? { read: true, weight: 70, gym: true } : { read: true };
    await proxyAs(b, { action: "saveEntry", date, values });
  }
  const today = (await b.get("/app")).html;
  for (const c of columns) {
    await t.step(
      `the streak of a ${c.words} column reads the same on Today and History`,
      async () => {
        const tool = await proxyAs(b, {
          action: "callTool",
          name: "get_streak",
          arguments: { metric: c.key },
        });
        const sc = tool.structuredContent as { unit: string; current: { length: number } };
        const expected = `${sc.current.length} ${c.words}`;
        assert.ok(sc.current.length > 1, `${c.key}: a streak of ${sc.current.length} ${sc.unit}`);
        assert.equal(todayStreak(today, c.key), expected, "Today");
        const history = (await b.get(`/app/history?column=${c.key}`)).html;
        assert.equal(historyStreak(history), expected, "History");
      },
    );
  }
});

Deno.test("GET /app/history over the whole record (issue #25)", async (t) => {
  await using app = await makeApp();
  const b = await signedUpBrowser(app, "longtime");
  await proxyAs(b, {
    action: "createColumn",
    key: "gym",
    label: "Gym",
    type: "boolean",
    goal: { op: "true", value: null, per: "week", times: 3 },
  });
  // Today is Sunday Nov 22 (UTC). Two years and a half back, a Saturday, and this week's Monday.
  const OLD = "2024-05-14";
  for (const date of [OLD, "2024-05-15", "2025-03-02", "2026-11-14", "2026-11-16"]) {
    await proxyAs(b, { action: "saveEntry", date, values: { gym: true } });
  }
  await proxyAs(b, { action: "saveEntry", date: "2026-11-18", values: { gym: false } });

  await t.step("All time charts the whole record in monthly marks", async () => {
    const { html } = await b.get("/app/history?column=gym&range=all");
    assertNamed(html, 'nav[aria-label="Chart range"] a[aria-current="page"]', "All time", 1);
    const [chart] = imgNames(html);
    assert.match(chart, /^Gym — all time \(since 14 May 2024\): /);
    assert.match(chart, /logged on 6 of 923 days, each bar a month's share of yes days$/);
    // May 2024 … Nov 2026: 31 months, a bar for each month with a value (May, March, November).
    assertSelector(html, "figure.chart svg[role=img] rect.bar", { count: 3 });
  });

  await t.step("a year charts 53 weekly marks, not 365 daily ones", async () => {
    const { html } = await b.get("/app/history?column=gym&range=365");
    assert.match(imgNames(html)[0], /^Gym — last 365 days: .*each bar a week's share/);
    // a bar for each week with a value: the week of Nov 14 and this one
    assertSelector(html, "figure.chart svg[role=img] rect.bar", { count: 2 });
  });

  await t.step("every year since the first entry has its calendar, one link away", async () => {
    const { html } = await b.get("/app/history?column=gym&range=all");
    assertSelector(html, "#calendar-heading", { count: 1, text: /^Calendar 2026$/ });
    for (const year of [2026, 2025, 2024]) {
      const href = year === 2026
        ? "/app/history?column=gym&range=all"
        : `/app/history?column=gym&range=all&year=${year}`;
      assertNamed(html, `nav[aria-label="Calendar years"] a[href="${href}"]`, String(year), 1);
    }
    const old = await b.get("/app/history?column=gym&range=all&year=2024");
    assertSelector(old.html, "#calendar-heading", { count: 1, text: /^Calendar 2024$/ });
    assert.equal(
      imgNames(old.html)[1],
      "Gym — calendar of 2024 (1 January to 31 December 2024): done 2, missed 0, skipped 0, no data 364",
    );
    const stale = await b.get("/app/history?column=gym&year=1999");
    assertSelector(stale.html, "#calendar-heading", { text: /^Calendar 2024$/ });
  });

  await t.step("the days of any month since the first entry are reachable", async () => {
    const { html } = await b.get("/app/history?column=gym&range=all&year=2024&month=2024-05");
    assert.deepEqual(dayLinks(html).slice(-2), ["2024-05-15", OLD]);
    assert.equal(dayLinks(html)[0], "2024-05-31", "the whole month, most recent first");
    assertSelector(html, 'nav[aria-label="Months of days"] a[rel="prev"]', { count: 0 });
    assertNamed(
      html,
      'nav[aria-label="Months of days"] a[rel="next"]' +
        '[href="/app/history?column=gym&range=all&year=2024&month=2024-06"]',
      "June 2024 →",
      1,
    );
    const now = await b.get("/app/history?column=gym");
    assert.equal(dayLinks(now.html)[0], "2026-11-22", "this month by default, from today (UTC)");
    assertNamed(now.html, 'nav[aria-label="Months of days"] a[rel="prev"]', "← October 2026", 1);
  });

  await t.step("the calendar's rows start on the member's first day of the week", async () => {
    const weekdayLabels = async () => {
      const { html } = await b.get("/app/history?column=gym");
      const labels = querySelectorAll(html, "svg text.heat-text").map((t) => t.textContent ?? "");
      return labels.filter((l) => /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)$/.test(l));
    };
    assert.deepEqual(await weekdayLabels(), ["Mon", "Wed", "Fri"], "Monday by default");
    await proxyAs(b, { action: "updateProfile", weekStartsOn: 0 });
    assert.deepEqual(await weekdayLabels(), ["Sun", "Tue", "Thu"]);
    await proxyAs(b, { action: "updateProfile", weekStartsOn: 1 });
  });

  await t.step(
    "habit strength is get_habit_strength's; a weekly goal says how many this week",
    async () => {
      const tool = await proxyAs(b, {
        action: "callTool",
        name: "get_habit_strength",
        arguments: { metric: "gym" },
      }) as { structuredContent: { score_pct: number } };
      const { html } = await b.get("/app/history?column=gym");
      const figure = (term: string) =>
        querySelectorAll(html, ".streaks dt").find((dt) => dt.textContent === term)
          ?.nextElementSibling?.textContent;
      assert.ok(tool.structuredContent.score_pct > 0);
      assert.equal(figure("Habit strength"), `${tool.structuredContent.score_pct}%`);
      // This week is Mon Nov 16 … Sun Nov 22 (today): the streak's current week.
      const streak = await proxyAs(b, {
        action: "callTool",
        name: "get_streak",
        arguments: { metric: "gym" },
      }) as { structuredContent: { current_week: { done: number; target: number } } };
      const week = streak.structuredContent.current_week;
      assert.equal(figure("Weekly goal"), `${week.done} of ${week.target} this week`);
    },
  );

  await t.step(
    "a pause's days read as paused in the calendar and the days, not skipped",
    async () => {
      await proxyAs(b, { action: "createPause", start: "2026-11-19", end: "2026-11-21" });
      const { html } = await b.get("/app/history?column=gym");
      assert.match(imgNames(html)[1], /skipped 0, paused 3, no data /);
      assertSelector(html, 'svg[role="img"] rect.cell.paused', { count: 3 });
      const rows = tableRows(html, "table.days").filter((r) => /(19|20|21) November/.test(r[0]));
      assert.deepEqual(rows.map((r) => r.at(-1)), ["paused", "paused", "paused"]);
    },
  );
});
