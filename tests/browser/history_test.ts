/**
 * History over the whole record in Chromium (issue #25, defect 9): a member with three years of
 * twelve columns reaches every range (30 days, 90 days, 1 year, all time), every year's calendar
 * and any month's days by links, by role and accessible name, at 390 and 1280 px, with and
 * without JavaScript; every view stays within 1,500 DOM nodes, axe-clean, without sideways
 * scrolling; a year's or the whole record's bars stay wide on a phone (weeks and months, not a
 * 365-bar comb), and the goal's key is never painted over the plot. Screenshots of each view go
 * to test-output/screenshots/history-*.png for review.
 */

import assert from "node:assert/strict";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { parseDay } from "../../lib/foundation/dates.ts";
import { updateColumn } from "../../lib/record/store.ts";
import { buildMember, THREE_YEARS } from "../_record_fixtures.ts";
import {
  assertAxeClean,
  browserTest,
  SCREENSHOT_DIR,
  sidewaysOverflow,
  signIn,
  VIEWPORTS,
} from "./_browser.ts";

/** The budget for any History view. */
const NODE_BUDGET = 1_500;
/** The server's manual clock stands at 2026-11-22 12:00 UTC; the member's zone is UTC. */
const TODAY = "2026-11-22";

/** The views checked: the path, and a file name for its screenshot. */
const VIEWS = [
  ["/app/history?column=c1&range=30", "30"],
  ["/app/history?column=c1&range=90", "90"],
  ["/app/history?column=c1&range=365", "year"],
  ["/app/history?column=c1&range=all", "all"],
  ["/app/history?column=c2&range=365", "yesno-year"],
  ["/app/history?column=c2&range=all&year=2024&month=2024-02", "yesno-2024"],
] as const;

/** Elements in the document, and the milliseconds to DOMContentLoaded. */
function measure(page: Page): Promise<{ nodes: number; dcl: number }> {
  return page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    return {
      nodes: document.querySelectorAll("*").length,
      dcl: Math.round(nav.domContentLoadedEventEnd - nav.startTime),
    };
  });
}

/** A signed-in context at `width`, JavaScript on or off. */
async function memberPage(
  browser: Browser,
  storageState: BrowserContextOptions["storageState"],
  width: number,
  javaScriptEnabled = true,
) {
  const context = await browser.newContext({
    viewport: { width, height: 844 },
    timezoneId: "UTC",
    storageState,
    javaScriptEnabled,
  });
  return { context, page: await context.newPage() };
}

/** The narrowest drawn bar of the chart, in CSS pixels. */
function narrowestBar(page: Page): Promise<number> {
  return page.evaluate(() => {
    const widths = [...document.querySelectorAll("figure.chart rect.bar")]
      .map((b) => b.getBoundingClientRect().width);
    return widths.length ? Math.min(...widths) : Infinity;
  });
}

browserTest(
  "history: three years of twelve columns in Chromium, every view within the node budget",
  async ({ server, base, browser }, t) => {
    const lastDay = parseDay(TODAY)!;
    const { memberId } = await buildMember(server.kv, server.clock, {
      username: "threeyears",
      shape: THREE_YEARS,
      seed: 25,
      lastDay,
    });
    // c1 holds 5.5–8.5 (hours of sleep): a goal of 7 puts the goal line through the data.
    await updateColumn({
      ctx: { kv: server.kv, clock: server.clock },
      memberId,
      key: "c1",
      patch: { goal: { op: "at_least", value: 7, per: "day", times: null } },
    });
    const first = await browser.newContext({ timezoneId: "UTC" });
    const signInPage = await first.newPage();
    assert.equal(await signIn(signInPage, base, "threeyears"), `${base}/app`);
    const signedIn = await first.storageState();
    await first.close();
    await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });

    for (const vp of VIEWPORTS) {
      await t.step(
        `every view within ${NODE_BUDGET} nodes, axe-clean, at ${vp.name} px`,
        async () => {
          const { context, page } = await memberPage(browser, signedIn, vp.width);
          const failures: string[] = [];
          for (const [path, name] of VIEWS) {
            await page.goto(`${base}${path}`);
            const { nodes, dcl } = await measure(page);
            console.log(`${vp.name} px ${path}: ${nodes} nodes, ${dcl} ms to DOMContentLoaded`);
            if (nodes > NODE_BUDGET) failures.push(`${path}: ${nodes} nodes`);
            const overflow = await sidewaysOverflow(page);
            if (overflow > 0) failures.push(`${path}: scrolls sideways by ${overflow} px`);
            await page.screenshot({
              path: new URL(`history-${name}-${vp.name}.png`, SCREENSHOT_DIR).pathname,
              fullPage: true,
            });
            await assertAxeClean(page, `${path} at ${vp.name} px`);
          }
          await context.close();
          assert.deepEqual(failures, []);
        },
      );
    }

    await t.step("a year and all time are weekly and monthly bars, wide on a phone", async () => {
      const { context, page } = await memberPage(browser, signedIn, 390);
      await page.goto(`${base}/app/history?column=c2&range=365`);
      const yearBars = await narrowestBar(page);
      assert.ok(yearBars >= 3, `a year: the narrowest bar is ${yearBars.toFixed(2)} px`);
      const ranges = page.getByRole("navigation", { name: "Chart range" });
      for (const [link, marks] of [["1 year", /week/], ["All time", /month/]] as const) {
        await ranges.getByRole("link", { name: link }).click();
        await page.waitForLoadState("load");
        assert.match(await chartName(page), marks);
        const narrowest = await narrowestBar(page);
        assert.ok(narrowest >= 3, `${link}: the narrowest bar is ${narrowest.toFixed(2)} px`);
      }
      await context.close();
    });

    await t.step("the goal's key is above the plot, never over the marks", async () => {
      for (const vp of VIEWPORTS) {
        const { context, page } = await memberPage(browser, signedIn, vp.width);
        for (const range of ["30", "365", "all"]) {
          await page.goto(`${base}/app/history?column=c1&range=${range}`);
          const key = await page.getByText(/^Goal: at least 7$/).boundingBox();
          const plot = await page.locator(".chart-plot").boundingBox();
          assert.ok(key && plot, "a goal key and a plot");
          assert.ok(
            key.y + key.height <= plot.y,
            `${vp.name} px, ${range}: key ends at ${key.y + key.height}, plot starts at ${plot.y}`,
          );
        }
        await context.close();
      }
    });

    await t.step(
      "without JavaScript: all time, an earlier year and its months by links",
      async () => {
        const { context, page } = await memberPage(browser, signedIn, 390, false);
        await page.goto(`${base}/app/history?column=c1`);
        await page.getByRole("navigation", { name: "Chart range" })
          .getByRole("link", { name: "All time" }).click();
        await page.waitForLoadState("load");
        assert.match(await chartName(page), /^C1 — all time \(since \d+ November 2023\): /);
        const years = page.getByRole("navigation", { name: "Calendar years" });
        assert.deepEqual(await years.getByRole("link").allTextContents(), [
          "2026",
          "2025",
          "2024",
          "2023",
        ]);
        await years.getByRole("link", { name: "2024" }).click();
        await page.waitForLoadState("load");
        await page.getByRole("heading", { name: "Calendar 2024" }).waitFor();
        const calendar = page.getByRole("img", { name: /^C1 — calendar of 2024 / });
        assert.equal(await calendar.count(), 1);
        assert.match(await chartName(page), /^C1 — all time/, "the range is kept");
        // The days of November 2026, then back a month by its link.
        const months = page.getByRole("navigation", { name: "Months of days" });
        await months.getByRole("link", { name: "October 2026" }).click();
        await page.waitForLoadState("load");
        const firstDay = page.getByRole("region", { name: "Days" }).getByRole("link").first();
        assert.equal(await firstDay.getAttribute("href"), "/app?day=2026-10-31");
        await page.getByRole("heading", { name: "Calendar 2024" }).waitFor();
        const { nodes } = await measure(page);
        assert.ok(nodes <= NODE_BUDGET, `${nodes} nodes without JavaScript`);
        await context.close();
      },
    );
  },
);

/** The chart's accessible name (its SVG `<title>`, referenced by `aria-labelledby`). */
function chartName(page: Page): Promise<string> {
  return page.locator("figure.chart svg[role=img] > title").first().innerHTML();
}
