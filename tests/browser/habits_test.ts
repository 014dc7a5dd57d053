/**
 * Today's habit list in Chromium (issue #24), by role and accessible name: seven yes/no habits
 * logged in seven taps with no scroll on a 390 × 844 phone, yesterday in one tap, a number cell's
 * "Same as yesterday" and "+1", skipped told from missed, the arrow keys moving between cells, a
 * refused value explained inside its cell, axe clean at 390 and 1280 px, and the same taps
 * without JavaScript. Every value is read back through `/api/proxy`, not from the page.
 */

import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import {
  assertAxeClean,
  type BrowserRun,
  browserTest,
  proxy,
  sidewaysOverflow,
  signUp,
  VIEWPORTS,
} from "./_browser.ts";

/** The server's manual clock stands at 2026-11-22 12:00 UTC (a Sunday); the member's zone is UTC. */
const TODAY = "2026-11-22";
const YESTERDAY = "2026-11-21";
const HABITS = ["Workout", "Read", "Stretch", "Floss", "Vitamins", "Journal", "No sugar"];

/** The stored values of `day`, by column key (`{}` when nothing is logged). */
async function storedDay(context: BrowserContext, base: string, day: string) {
  const { entries } = await proxy(context, base, { action: "getEntries", start: day, end: day });
  return (entries[0]?.values ?? {}) as Record<string, unknown>;
}

/** A member with seven yes/no columns (plus `extra` starter columns), on Today. */
async function habitMember(
  { browser, base, server }: BrowserRun,
  name: string,
  viewport: { width: number; height: number },
  options: { javaScriptEnabled?: boolean; starters?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  server.clock.advance(61_000); // sign-ups share the `auth` quota of 10 a minute per address
  const context = await browser.newContext({
    viewport,
    timezoneId: "UTC",
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  const page = await context.newPage();
  await signUp(page, base, name);
  if (options.starters) {
    await page.getByRole("button", { name: "Add all starter columns" }).click();
    await page.waitForLoadState("load");
  } else {
    for (const label of HABITS) {
      const key = label.toLowerCase().replace(/ /g, "_");
      await proxy(context, base, { action: "createColumn", key, label, type: "boolean" });
    }
    await page.goto(`${base}/app`);
  }
  return { context, page };
}

/** "Workout, Thursday 26 November": a cell's accessible name. */
function cellName(label: string, day: string): string {
  const when = new Intl.DateTimeFormat("en-GB", {
    weekday: "long",
    day: "numeric",
    month: "long",
    timeZone: "UTC",
  }).format(Date.parse(`${day}T00:00:00Z`)).replace(",", "");
  return `${label}, ${when}`;
}

/** The yes/no cell of `label` on `day`: a button named "<Label>, <Weekday> <d> <Month>". */
function cell(page: Page, label: string, day = TODAY) {
  return page.getByRole("button", { name: cellName(label, day), exact: true });
}

/**
 * Taps a yes/no cell and waits for the server's answer to its save. With JavaScript the cell shows
 * the new state before the save is answered (it is optimistic), so reading the day back as soon as
 * it is pressed raced the save (CI: `read` undefined once in a run under load).
 */
async function tapSaved(page: Page, label: string, day = TODAY): Promise<void> {
  const answered = page.waitForResponse((res) =>
    res.request().method() === "POST" && new URL(res.url()).pathname === "/app/habits"
  );
  await cell(page, label, day).click();
  await answered;
}

/**
 * A number cell: the `summary` of a disclosure, named like a yes/no cell (Playwright gives
 * `summary` no implicit role, so it is found by its name and element).
 */
function numberCell(page: Page, label: string, day = TODAY) {
  return page.locator("summary").and(page.getByLabel(cellName(label, day), { exact: true }));
}

/** Whether the element lies wholly inside the viewport as the page stands (no scroll needed). */
async function whollyOnScreen(page: Page, locator: ReturnType<Page["locator"]>): Promise<boolean> {
  const box = await locator.boundingBox();
  const vp = page.viewportSize()!;
  return !!box && box.y >= 0 && box.y + box.height <= vp.height && box.x >= 0 &&
    box.x + box.width <= vp.width;
}

/**
 * Logs every habit of `HABITS` done today as a member would: a tap on each cell, a scroll
 * (counted) only when the cell is not wholly on screen. Returns the taps and scrolls it took.
 */
async function logSevenHabits(page: Page): Promise<{ taps: number; scrolls: number }> {
  let taps = 0;
  let scrolls = 0;
  for (const label of HABITS) {
    const target = cell(page, label);
    if (!(await whollyOnScreen(page, target))) {
      scrolls++;
      await target.scrollIntoViewIfNeeded();
    }
    await tapSaved(page, label);
    taps++;
    await page.waitForLoadState("load");
    assert.equal(await cell(page, label).getAttribute("aria-pressed"), "true", label);
  }
  return { taps, scrolls };
}

browserTest(
  "Habit list: seven habits in seven taps on a phone, by name, with and without JS",
  async (
    run,
    t,
  ) => {
    const { base } = run;

    await t.step(
      "390 × 844, JavaScript on: 7 yes/no habits take 7 taps and no scroll",
      async () => {
        const { context, page } = await habitMember(run, "seven_taps", { width: 390, height: 844 });
        const measured = await logSevenHabits(page);
        const scrolled = await page.evaluate(() => globalThis.scrollY);
        console.log(`after: ${measured.taps} taps, ${measured.scrolls} scrolls, no Save`);
        assert.deepEqual(measured, { taps: 7, scrolls: 0 });
        assert.equal(scrolled, 0, "the page never scrolled");
        assert.equal(page.url(), `${base}/app`, "no page load: the script saved each tap");
        await page.waitForFunction(() => !document.querySelector(".habit-status")?.textContent);
        await assertAxeClean(page, "Today's habit list at 390 px after seven taps");
        assert.equal(await sidewaysOverflow(page), 0);
        // Read back through the API: saved at once, no Save pressed.
        await page.waitForTimeout(200);
        const stored = await storedDay(context, base, TODAY);
        for (const label of HABITS) {
          assert.equal(stored[label.toLowerCase().replace(/ /g, "_")], true, label);
        }

        // Yesterday is one tap, and a second tap takes it back (a logged "no").
        await tapSaved(page, "Read", YESTERDAY);
        await assertPressed(page, "Read", YESTERDAY, "true");
        assert.equal((await storedDay(context, base, YESTERDAY)).read, true);
        await tapSaved(page, "Read", YESTERDAY);
        await assertPressed(page, "Read", YESTERDAY, "false");
        assert.equal((await storedDay(context, base, YESTERDAY)).read, false);

        // A reload shows what is stored.
        await page.reload();
        assert.equal(await cell(page, "Journal").getAttribute("aria-pressed"), "true");
        assert.equal(await cell(page, "Read", YESTERDAY).getAttribute("aria-pressed"), "false");
        await context.close();
      },
    );

    await t.step("Keyboard: one tab stop, arrow keys move between days and habits", async () => {
      const { context, page } = await habitMember(run, "arrows", { width: 390, height: 844 });
      await cell(page, "Workout").focus();
      const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label"));
      await page.keyboard.press("ArrowLeft");
      assert.equal(await focused(), "Workout, Saturday 21 November");
      await page.keyboard.press("ArrowDown");
      assert.equal(await focused(), "Read, Saturday 21 November");
      await page.keyboard.press("Home");
      assert.equal(await focused(), "Read, Monday 16 November");
      await page.keyboard.press("End");
      assert.equal(await focused(), "Read, Sunday 22 November");
      await page.keyboard.press("ArrowUp");
      assert.equal(await focused(), "Workout, Sunday 22 November");
      await page.keyboard.press("Space");
      await assertPressed(page, "Workout", TODAY, "true");
      // The list is one stop: Tab leaves it for the day navigation below.
      await page.keyboard.press("Tab");
      assert.equal(
        await page.evaluate(() => !!document.activeElement?.closest("[data-habits]")),
        false,
      );
      await page.keyboard.press("Shift+Tab");
      assert.equal(await focused(), "Workout, Sunday 22 November");
      await context.close();
    });

    await t.step(
      "Numbers: same as yesterday, +1, skipped told from missed, a refused value",
      async () => {
        const { context, page } = await habitMember(run, "numbers", { width: 390, height: 844 }, {
          starters: true,
        });
        await proxy(context, base, {
          action: "saveEntry",
          date: YESTERDAY,
          values: { sleep_hours: 7.5, water_glasses: 3 },
        });
        await page.reload();
        await numberCell(page, "Sleep").click();
        await assertAxeClean(page, "a number cell open at 390 px");
        await page.getByRole("button", { name: "Same as yesterday (7.5)" }).click();
        await page.waitForFunction(() => !document.querySelector("details[open]"));
        await numberCell(page, "Water").click();
        await page.locator("details[open]").getByRole("button", { name: "+1", exact: true })
          .click();
        await page.waitForFunction(() => !document.querySelector("details[open]"));
        await numberCell(page, "Water").click();
        await page.locator("details[open]").getByRole("button", { name: "+1", exact: true })
          .click();
        await page.waitForFunction(() => !document.querySelector("details[open]"));
        await numberCell(page, "Steps").click();
        await page.locator("details[open]").getByRole("button", { name: "Skip this day" }).click();
        await page.waitForFunction(() => !document.querySelector("details[open]"));
        await page.waitForTimeout(200);
        const stored = await storedDay(context, base, TODAY);
        assert.equal(stored.sleep_hours, 7.5);
        assert.equal(stored.water_glasses, 2);
        assert.equal(stored.steps, "skip");

        // Skipped and missed differ in words (the description) and in look (not colour alone).
        await page.reload();
        const skipped = numberCell(page, "Steps");
        const missed = numberCell(page, "Steps", YESTERDAY);
        assert.equal(await description(skipped), "skipped");
        assert.equal(await description(missed), "nothing logged");
        assert.notEqual(await borderStyle(skipped), await borderStyle(missed));
        assert.equal(await skipped.innerText(), "–");
        assert.equal(await description(numberCell(page, "Sleep")), "7.5 h");

        // A value that is not a number: nothing saved, the reason on screen.
        await numberCell(page, "Weight").click();
        await page.getByRole("textbox", { name: "Weight, Sunday 22 November" }).fill("heavy");
        await page.locator("details[open]").getByRole("button", { name: "Save", exact: true })
          .click();
        await page.getByRole("status").filter({ hasText: "Not a number" }).waitFor();
        assert.equal((await storedDay(context, base, TODAY)).weight, undefined);
        const weight = page.getByRole("textbox", { name: "Weight, Sunday 22 November" });
        assert.equal(await weight.getAttribute("aria-invalid"), "true");
        assert.match(await description(weight), /Not a number/);
        await context.close();
      },
    );

    for (const vp of VIEWPORTS) {
      await t.step(
        `${vp.name} px: axe clean, no sideways scroll, every habit row on screen`,
        async () => {
          const { context, page } = await habitMember(run, `fit_${vp.name}`, vp);
          await cell(page, "Workout", YESTERDAY).click();
          await assertPressed(page, "Workout", YESTERDAY, "true");
          await assertAxeClean(page, `Today's habit list at ${vp.name} px`);
          assert.equal(await sidewaysOverflow(page), 0);
          for (const label of HABITS) {
            assert.ok(await whollyOnScreen(page, cell(page, label)), `${label} on screen`);
            const box = (await cell(page, label).boundingBox())!;
            assert.ok(box.width >= 44 && box.height >= 44, `${label}: a 44 px target`);
          }
          await context.close();
        },
      );
    }

    await t.step(
      "390 px, JavaScript off: each tap is a form that comes back to its row",
      async () => {
        const { context, page } = await habitMember(run, "no_js", { width: 390, height: 844 }, {
          javaScriptEnabled: false,
        });
        const measured = await logSevenHabits(page);
        console.log(
          `after, without JavaScript: ${measured.taps} taps, ${measured.scrolls} scrolls`,
        );
        assert.equal(measured.taps, 7);
        assert.match(page.url(), /\/app#habit-no_sugar$/);
        await page.getByText("No sugar, Sunday 22 November: done.").waitFor();
        const stored = await storedDay(context, base, TODAY);
        assert.equal(Object.values(stored).filter((v) => v === true).length, 7);
        await tapSaved(page, "Read", YESTERDAY);
        await page.waitForLoadState("load");
        assert.equal(await cell(page, "Read", YESTERDAY).getAttribute("aria-pressed"), "true");
        assert.equal((await storedDay(context, base, YESTERDAY)).read, true);

        // axe needs JavaScript to run: the same page in a context whose only script blocked is the
        // habit list's, so axe sees the markup a browser without JavaScript gets.
        const cookies = await context.cookies();
        await context.close();
        const withAxe = await run.browser.newContext({ viewport: { width: 390, height: 844 } });
        await withAxe.addCookies(cookies);
        await withAxe.route("**/static/habits.js", (r) => r.abort());
        const axePage = await withAxe.newPage();
        await axePage.goto(`${base}/app#habit-read`);
        assert.equal(
          await cell(axePage, "Workout").getAttribute("tabindex"),
          null,
          "no script ran",
        );
        await assertAxeClean(axePage, "Today's habit list as served without JavaScript");
        await withAxe.close();
      },
    );
  },
);

async function assertPressed(page: Page, label: string, day: string, want: string) {
  const target = cell(page, label, day);
  await page.waitForFunction(
    ([el, v]) => (el as Element).getAttribute("aria-pressed") === v,
    [await target.elementHandle(), want] as const,
  );
  // The save is in flight until the status line is empty and no fetch is pending: wait for it.
  await page.waitForLoadState("networkidle");
}

function description(locator: ReturnType<Page["locator"]>): Promise<string> {
  return locator.evaluate((el) =>
    (el.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent?.trim() ?? "").join(" ")
  );
}

function borderStyle(locator: ReturnType<Page["locator"]>): Promise<string> {
  return locator.evaluate((el) => getComputedStyle(el).borderTopStyle);
}
