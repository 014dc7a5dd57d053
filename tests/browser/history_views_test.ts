/**
 * History's groups, dates and days in Chromium (issue #25), by role and accessible name, at 390 and
 * 1280 px with axe, and once without JavaScript:
 * - the column picker lists each group's columns in a list named by the group, in the order Today
 *   heads its sections (an archived column after the active ones of its group), reached by
 *   keyboard;
 * - every date History shows (the chart's and the calendar's names, the axis, a day's tooltip, the
 *   days and the months) follows the member's date locale: en-GB "10 March 2025", en-US
 *   "March 10, 2025";
 * - a day with a 200-character note reads on a phone: no sideways scrolling, the note across the
 *   table's width in a few lines, the day's date at the top of its row, the value on one line.
 * Screenshots of every range, an earlier year's calendar, the groups and the long note, light and
 * dark, go to test-output/screenshots/history-views-*.png.
 */

import assert from "node:assert/strict";
import type { Browser, Locator, Page } from "playwright-core";
import { registerMember } from "../../lib/accounts/accounts.ts";
import { type DayNumber, formatDay, parseDay } from "../../lib/foundation/dates.ts";
import {
  ColumnCreate,
  createColumn,
  recordVersionEntry,
  type StoredEntry,
  updateColumn,
  writeEntries,
} from "../../lib/record/store.ts";
import type { DayValue } from "../../lib/record/types.ts";
import {
  assertAxeClean,
  browserTest,
  PASSWORD,
  SCREENSHOT_DIR,
  sidewaysOverflow,
  signIn,
  VIEWPORTS,
} from "./_browser.ts";
import type { TestServer } from "../_helpers.ts";

/** The server's manual clock stands at 2026-11-22 12:00 UTC (a Sunday); the member's zone is UTC. */
const TODAY = parseDay("2026-11-22")!;
/** The first entry: all time reaches back into 2025, so there are two calendar years. */
const FIRST = parseDay("2025-03-10")!;
/** The day of the long note: Friday 20 November 2026. */
const NOTE_DAY = "2026-11-20";
/** A 200-character note, the length that squeezed the Days table on a phone. */
const LONG_NOTE = (
  "Slept badly: the neighbours had a party until two, so I read for an hour and then " +
  "listened to the rain. Walked to work anyway and felt better by lunch; early night planned " +
  "with no screens after nine tonight."
).slice(0, 200);
/** A note with a long link in it, which must break rather than widen the page. */
const LINK_NOTE =
  "Route: https://example.org/routes/the-long-way-round-the-reservoir-and-back-by-the-canal/2026";

/**
 * The columns in the member's order. Run is archived and first, in Evening: Today does not show
 * it, so History's groups must still come as Today's do (Morning, Other, Evening), not Evening
 * first.
 */
const COLUMNS = [
  { key: "run", label: "Run", type: "boolean", group: "Evening" },
  {
    key: "meditate",
    label: "Meditate",
    type: "boolean",
    group: "Morning",
    goal: { op: "true", value: null, per: "day", times: null },
  },
  {
    key: "steps",
    label: "Steps",
    type: "integer",
    unit: "steps",
    daily_agg: "sum",
    goal: { op: "at_least", value: 8000, per: "day", times: null },
  },
  { key: "stretch", label: "Stretch", type: "boolean", group: "Morning" },
  {
    key: "sleep",
    label: "Sleep",
    type: "number",
    unit: "h",
    group: "Evening",
    goal: { op: "at_least", value: 7, per: "day", times: null },
  },
] as const;

/** The groups as Today heads them, each with its columns' link names on History. */
const PICKER = [
  ["Morning", ["Meditate", "Stretch"]],
  ["Other", ["Steps"]],
  ["Evening", ["Sleep", "Run archived"]],
] as const;

/** A day's entry: a few days of nothing, values otherwise, and the three notes. */
function entryOf(day: DayNumber, i: number, now: number): StoredEntry {
  const values: Record<string, DayValue> = {};
  if (i % 11 !== 5) {
    values.meditate = i % 3 !== 0;
    values.steps = 3000 + ((i * 1237) % 9000);
    values.stretch = i % 2 === 0;
    values.sleep = 5.5 + ((i * 7) % 13) * 0.25;
    values.run = i % 4 === 0;
  }
  const iso = formatDay(day);
  const note = iso === NOTE_DAY
    ? LONG_NOTE
    : iso === "2026-11-18"
    ? LINK_NOTE
    : iso === "2026-11-15"
    ? "Short day."
    : null;
  return { values, note, updatedAt: now };
}

/** Registers `username` with the columns and every day from FIRST to yesterday. */
async function seedMember(server: TestServer, username: string): Promise<void> {
  const ctx = { kv: server.kv, clock: server.clock };
  const { memberId } = await registerMember(
    { ...ctx, passwordIterations: 1_000 },
    { username, password: PASSWORD },
  );
  for (const column of COLUMNS) await createColumn(ctx, memberId, ColumnCreate.parse(column));
  await updateColumn({ ctx, memberId, key: "run", patch: { archived: true } });
  const entries = [];
  for (let day = FIRST, i = 0; day < TODAY; day++, i++) {
    entries.push({ day, entry: entryOf(day, i, server.clock()) });
  }
  for (let i = 0; i < entries.length; i += 150) {
    const versionEntry = await recordVersionEntry(server.kv, memberId);
    const part = entries.slice(i, i + 150);
    assert.ok(await writeEntries(ctx, memberId, { versionEntry, entries: part }), "seeded");
  }
}

/** A signed-in page at `width`, JavaScript on or off, in a light or dark device. */
async function memberPage(
  browser: Browser,
  base: string,
  width: number,
  options: { javaScriptEnabled?: boolean; colorScheme?: "light" | "dark" } = {},
) {
  const context = await browser.newContext({
    viewport: { width, height: 844 },
    timezoneId: "UTC",
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    colorScheme: options.colorScheme ?? "light",
  });
  const page = await context.newPage();
  assert.equal(await signIn(page, base, "groupedhistory"), `${base}/app`);
  return { context, page };
}

/** The column picker's list named `group`. */
function groupList(page: Page, group: string): Locator {
  return page.getByRole("navigation", { name: "Columns" })
    .getByRole("list", { name: group, exact: true });
}

/** The picker's lists hold each group's columns, the groups top to bottom in Today's order. */
async function assertPickerGroups(page: Page): Promise<void> {
  let above = -Infinity;
  for (const [group, links] of PICKER) {
    const list = groupList(page, group);
    for (const name of links) {
      assert.equal(
        await list.getByRole("link", { name, exact: true }).count(),
        1,
        `${group}: ${name}`,
      );
    }
    assert.equal(await list.getByRole("link").count(), links.length, `${group} holds ${links}`);
    const box = await list.boundingBox();
    assert.ok(box && box.y > above, `${group} comes below the group before it`);
    above = box.y;
  }
}

/** Today heads its sections in PICKER's order, top to bottom (the order History's must follow). */
async function assertTodayOrder(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/app`);
  let above = -Infinity;
  for (const [group] of PICKER) {
    const box = await page.getByRole("region", { name: group, exact: true }).boundingBox();
    assert.ok(box && box.y > above, `Today: ${group} comes below the group before it`);
    above = box.y;
  }
}

/** The accessible name of the chart (`figure.chart`) or the calendar (`.heatmap`). */
async function imgName(page: Page, within: string): Promise<string> {
  return (await page.locator(`${within} svg[role=img] > title`).first().textContent()) ?? "";
}

/** What the date style shows on History's chart, calendar, axis, days and months. */
async function historyDates(page: Page, base: string) {
  await page.goto(`${base}/app/history?column=sleep&range=all`);
  const allTime = await imgName(page, "figure.chart");
  const calendar = await imgName(page, ".heatmap");
  const monthTicks = await page.locator(".chart-labels .x-label").allTextContents();
  const tooltip = await page.locator(".heatmap rect.cell.today > title").textContent();
  const days = page.getByRole("region", { name: "Days" });
  const firstDay = (await days.getByRole("rowheader").first().textContent())!.trim();
  const months = page.getByRole("navigation", { name: "Months of days" });
  const earlier = (await months.getByRole("link").first().textContent())!.replace("←", "").trim();
  await page.goto(`${base}/app/history?column=sleep&range=30`);
  const dayTicks = await page.locator(".chart-labels .x-label").allTextContents();
  const month = await imgName(page, "figure.chart");
  return { allTime, calendar, monthTicks, tooltip, firstDay, earlier, dayTicks, month };
}

/** Saves the Dates preference whose example starts with `example` on Settings. */
async function chooseDates(page: Page, base: string, example: RegExp): Promise<void> {
  await page.goto(`${base}/app/settings#preferences`);
  const dates = page.getByLabel("Dates");
  const label = await dates.locator("option").filter({ hasText: example }).textContent();
  await dates.selectOption({ label: label! });
  await page.getByRole("button", { name: "Save preferences" }).click();
  await page.getByRole("status").filter({ hasText: "Preferences saved." }).waitFor();
}

/**
 * The long note's cell and its row as laid out: the cell's width against its frame's, how far the
 * frame scrolls sideways, the note's lines, where the first lines of the date and the note start,
 * and the value's lines and clipping.
 */
function noteLayout(page: Page) {
  return page.evaluate((text) => {
    const lineTops = (el: Element) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return [...range.getClientRects()].map((r) => Math.round(r.top));
    };
    const cell = [...document.querySelectorAll("table.days td")]
      .find((td) => td.textContent === text) as HTMLElement;
    const row = cell.closest("tr")!;
    const frame = cell.closest("[role=region]") as HTMLElement;
    const value = row.querySelector("td") as HTMLElement;
    const noteLines = lineTops(cell);
    return {
      noteWidth: Math.round(cell.getBoundingClientRect().width),
      frameWidth: frame.clientWidth,
      frameScrolls: frame.scrollWidth - frame.clientWidth,
      lines: new Set(noteLines).size,
      noteTop: Math.min(...noteLines),
      dateTop: Math.min(...lineTops(row.querySelector("th a")!)),
      valueLines: new Set(lineTops(value)).size,
      valueClipped: value.scrollWidth - value.clientWidth,
    };
  }, LONG_NOTE);
}

/** The views shot in light and dark: path and name. */
const SHOTS = [
  ["/app/history?column=sleep&range=30", "30-note"],
  ["/app/history?column=sleep&range=90", "90"],
  ["/app/history?column=steps&range=365", "year"],
  ["/app/history?column=sleep&range=all", "all"],
  ["/app/history?column=steps&range=all&year=2025&month=2025-03", "calendar-2025"],
] as const;

async function shoot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = new URL(`history-views-${name}.png`, SCREENSHOT_DIR).pathname;
  await page.screenshot({ path, fullPage: true });
}

browserTest(
  "history: groups head the column picker in Today's order, dates follow the member's locale, a long note reads on a phone",
  async ({ server, base, browser }, t) => {
    await seedMember(server, "groupedhistory");

    for (const vp of VIEWPORTS) {
      await t.step(
        `${vp.name} px: each group's columns are a list named by the group`,
        async () => {
          const { context, page } = await memberPage(browser, base, vp.width);
          await assertTodayOrder(page, base);
          await page.goto(`${base}/app/history`);
          await assertPickerGroups(page);
          // By keyboard: a group's link is a tab stop, and Enter opens its column.
          await groupList(page, "Evening").getByRole("link", { name: "Sleep", exact: true })
            .focus();
          await page.keyboard.press("Enter");
          await page.waitForURL(/column=sleep/);
          await page.getByRole("heading", { level: 2, name: "Sleep", exact: true }).waitFor();
          const current = groupList(page, "Evening").getByRole("link", { name: "Sleep" });
          assert.equal(await current.getAttribute("aria-current"), "page");
          assert.equal(await sidewaysOverflow(page), 0);
          await assertAxeClean(page, `History with groups at ${vp.name} px`);
          await context.close();
        },
      );
    }

    await t.step("without JavaScript: the groups' lists and their links", async () => {
      const { context, page } = await memberPage(browser, base, 390, { javaScriptEnabled: false });
      await page.goto(`${base}/app/history`);
      await assertPickerGroups(page);
      await groupList(page, "Morning").getByRole("link", { name: "Stretch", exact: true }).click();
      await page.getByRole("heading", { level: 2, name: "Stretch", exact: true }).waitFor();
      await context.close();
    });

    await t.step("every date on History in the member's style: en-GB, then en-US", async () => {
      const { context, page } = await memberPage(browser, base, 1280);
      const gb = await historyDates(page, base);
      assert.match(gb.allTime, /^Sleep — all time \(since 10 March 2025\): /);
      assert.match(gb.calendar, /^Sleep — calendar of 2026 \(1 January to 22 November 2026\): /);
      assert.match(gb.tooltip!, /^Sunday 22 November 2026: /);
      assert.equal(gb.firstDay, "Sunday 22 November");
      assert.equal(gb.earlier, "October 2026");
      assert.ok(gb.monthTicks.some((l) => /^Jan 2026$/.test(l)), gb.monthTicks.join());
      assert.ok(gb.dayTicks.every((l) => /^\d{1,2} [A-Z][a-z]{2,3}$/.test(l)), gb.dayTicks.join());
      assert.match(gb.month, /\(\d{1,2} (October|November)\)/, "a minimum's date");

      await chooseDates(page, base, /^November/);
      const us = await historyDates(page, base);
      assert.match(us.allTime, /^Sleep — all time \(since March 10, 2025\): /);
      assert.match(us.calendar, /^Sleep — calendar of 2026 \(January 1 to November 22, 2026\): /);
      assert.match(us.tooltip!, /^Sunday, November 22, 2026: /);
      assert.equal(us.firstDay, "Sunday, November 22");
      assert.equal(us.earlier, "October 2026");
      assert.ok(us.dayTicks.every((l) => /^[A-Z][a-z]{2} \d{1,2}$/.test(l)), us.dayTicks.join());
      assert.match(us.month, /\((October|November) \d{1,2}\)/, "a minimum's date");
      await chooseDates(page, base, /^26 November/);
      await context.close();
    });

    for (const vp of VIEWPORTS) {
      await t.step(`${vp.name} px: a 200-character note reads in the Days table`, async () => {
        const { context, page } = await memberPage(browser, base, vp.width);
        await page.goto(`${base}/app/history?column=sleep`);
        const days = page.getByRole("region", { name: "Days" });
        // Still a table to a reader: a row per day (22 and the header), each headed by its date.
        assert.equal(await days.getByRole("row").count(), 23);
        const noteRow = days.getByRole("row").filter({ hasText: LONG_NOTE.slice(0, 40) });
        assert.equal(await noteRow.getByRole("rowheader").count(), 1, "the day heads its row");
        assert.equal(await sidewaysOverflow(page), 0, "no sideways scrolling");
        const layout = await noteLayout(page);
        const where = `${vp.name} px: ${JSON.stringify(layout)}`;
        assert.ok(layout.frameScrolls <= 1, `the table fits its frame; ${where}`);
        // Not halfway down beside the note (the screenshot's empty-looking date cells).
        assert.ok(layout.dateTop <= layout.noteTop + 8, `the date tops its row; ${where}`);
        assert.equal(layout.valueLines, 1, `the value on one line; ${where}`);
        assert.ok(layout.valueClipped <= 0, `the value is not clipped; ${where}`);
        if (vp.width === 390) {
          assert.ok(layout.noteWidth >= 0.75 * layout.frameWidth, `the note's width; ${where}`);
          assert.ok(layout.lines <= 7, `the note in a few lines; ${where}`);
        }
        await assertAxeClean(page, `History's days with a long note at ${vp.name} px`);
        // The longest pair of neighbouring months ("← September 2026", "November 2026 →").
        await page.goto(`${base}/app/history?column=sleep&month=2026-10`);
        await page.getByRole("link", { name: "September 2026", exact: true }).waitFor();
        assert.equal(await sidewaysOverflow(page), 0, "October's months fit");
        await shoot(page, `october-${vp.name}`);
        await context.close();
      });
    }

    for (const vp of VIEWPORTS) {
      for (const scheme of ["light", "dark"] as const) {
        await t.step(`screenshots at ${vp.name} px, ${scheme}`, async () => {
          const { context, page } = await memberPage(browser, base, vp.width, {
            colorScheme: scheme,
          });
          for (const [path, name] of SHOTS) {
            await page.goto(`${base}${path}`);
            assert.equal(await sidewaysOverflow(page), 0, `${path} scrolls sideways`);
            const nodes = await page.evaluate(() => document.querySelectorAll("*").length);
            assert.ok(nodes <= 1_500, `${path}: ${nodes} nodes`);
            await shoot(page, `${name}-${scheme}-${vp.name}`);
            await assertAxeClean(page, `${path}, ${scheme}, at ${vp.name} px`);
          }
          await context.close();
        });
      }
    }
  },
);
