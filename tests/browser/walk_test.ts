/**
 * Issue #25, "the rest of the walk", as a member meets it at 390 and 1280 px, with JavaScript on
 * and off, by role and accessible name: sign-up's visible time-zone field and Today's notice while
 * the zone is UTC (defect 3); ↑, ↓, Archive and Restore on Columns returning to the column with the
 * focus on it (defect 6); "Clear" for a skip and a yes/no answer (defect 8); a phone header whose
 * brand, name and "Sign out" each keep one line, and Columns in the navigation; deleting a column
 * with its values. Every changed page passes axe and is photographed at both widths.
 */

import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import {
  assertAxeClean,
  type BrowserRun,
  browserTest,
  PASSWORD,
  SCREENSHOT_DIR,
  sidewaysOverflow,
  VIEWPORTS,
} from "./_browser.ts";

/** A locator that is not there fails in 15 s, not the default 30 (a page load may take longer). */
const WAIT_MS = 15_000;
const LOAD_MS = 30_000;

interface Member {
  context: BrowserContext;
  page: Page;
}

/**
 * Signs a member up through `/signup` by accessible names, typing `zone` into the time-zone field
 * when given (it must be visible for that), and lands on Today. The clock moves a minute first:
 * sign-ups share the `auth` quota of 10 a minute per address.
 */
async function member(
  { browser, base, server }: BrowserRun,
  o: { name: string; width?: number; js?: boolean; zone?: string; browserZone?: string },
): Promise<Member> {
  server.clock.advance(61_000);
  const context = await browser.newContext({
    viewport: { width: o.width ?? 390, height: 844 },
    timezoneId: o.browserZone ?? "UTC",
    javaScriptEnabled: o.js ?? true,
  });
  context.setDefaultTimeout(WAIT_MS);
  context.setDefaultNavigationTimeout(LOAD_MS);
  const page = await context.newPage();
  await page.goto(`${base}/signup`);
  await page.getByLabel("Username").fill(o.name);
  await page.getByLabel("Password").fill(PASSWORD);
  if (o.zone !== undefined) await page.getByLabel("Time zone").fill(o.zone);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(`${base}/app`);
  return { context, page };
}

/** Adds the seven starter columns from Today's empty state. */
async function starters(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Add all starter columns" }).click();
  await page.waitForLoadState("load");
}

/** The accessible name of the focused element (its text less what is aria-hidden), or "body". */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return "body";
    const copy = el.cloneNode(true) as Element;
    for (const hidden of copy.querySelectorAll("[aria-hidden=true]")) hidden.remove();
    return (copy.textContent ?? "").replace(/\s+/g, " ").trim();
  });
}

/** Whether the focused element lies inside the viewport. */
function focusOnScreen(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const r = document.activeElement?.getBoundingClientRect();
    return !!r && r.bottom > 0 && r.top < innerHeight;
  });
}

/** The labels of "Your columns", in order. */
async function columnOrder(page: Page): Promise<string[]> {
  const section = page.getByRole("region", { name: "Your columns" });
  return (await section.getByRole("heading", { level: 3 }).allInnerTexts()).map((s) => s.trim());
}

/** How many lines the element's text takes (distinct line boxes of its contents). */
function linesOf(page: Page, selector: string): Promise<number> {
  return page.locator(selector).first().evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0)
      .map((r) => Math.round(r.top + r.height / 2));
    // Boxes of one line share their middle within a few pixels (an icon is taller than text).
    const lines: number[] = [];
    for (const t of tops) if (!lines.some((l) => Math.abs(l - t) < 8)) lines.push(t);
    return lines.length;
  });
}

/** A screenshot of the whole page, or (`fullPage` false) of what the member sees where it opened. */
async function screenshot(page: Page, name: string, width: number, fullPage = true) {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = new URL(`walk-${name}-${width}.png`, SCREENSHOT_DIR);
  await page.screenshot({ path: path.pathname, fullPage });
}

browserTest("Walk #25: time zone, Columns actions, Clear, phone header, delete a column", async (
  run,
  t,
) => {
  const { base } = run;

  await t.step("sign-up without JavaScript: a visible Time zone field sets the zone", async () => {
    const { context, page } = await member(run, {
      name: "newyorker",
      js: false,
      zone: "America/New_York",
    });
    await page.goto(`${base}/app/settings`);
    assert.equal(await page.getByLabel("Time zone").inputValue(), "America/New_York");
    await context.close();
  });

  await t.step("sign-up with JavaScript: the field holds this device's zone", async () => {
    const context = await run.browser.newContext({ timezoneId: "Asia/Tokyo" });
    context.setDefaultTimeout(WAIT_MS);
    context.setDefaultNavigationTimeout(LOAD_MS);
    const page = await context.newPage();
    await page.goto(`${base}/signup`);
    assert.equal(await page.getByLabel("Time zone").inputValue(), "Asia/Tokyo");
    await context.close();
  });

  await t.step("sign-up: a zone that is no IANA name is refused beside the field", async () => {
    run.server.clock.advance(61_000);
    const context = await run.browser.newContext({ javaScriptEnabled: false });
    context.setDefaultTimeout(WAIT_MS);
    context.setDefaultNavigationTimeout(LOAD_MS);
    const page = await context.newPage();
    await page.goto(`${base}/signup`);
    await page.getByLabel("Username").fill("marsian");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Time zone").fill("Mars/Olympus");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForLoadState("load");
    const field = page.getByLabel("Time zone");
    assert.equal(await field.getAttribute("aria-invalid"), "true");
    assert.equal(await field.inputValue(), "Mars/Olympus");
    assert.match(await page.locator("#f-timezone-error").innerText(), /not a time zone we know/);
    await context.close();
  });

  await t.step("Today says the zone is UTC and links to where to change it", async () => {
    const { context, page } = await member(run, { name: "utcmember", js: false });
    await starters(page);
    await page.getByRole("link", { name: "Set your time zone in Settings" }).click();
    await page.waitForURL(`${base}/app/settings#profile`);
    await page.getByLabel("Time zone").fill("Europe/Berlin");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.goto(`${base}/app`);
    assert.equal(
      await page.getByRole("link", { name: "Set your time zone in Settings" }).count(),
      0,
      "the notice goes once a zone is set",
    );
    await context.close();
  });

  for (const js of [true, false]) {
    const how = js ? "JavaScript on" : "JavaScript off";
    await t.step(`Columns, ${how}: ↑ ↓ Archive Restore return to the column, focused`, async () => {
      const { context, page } = await member(run, { name: js ? "mover_js" : "mover", js });
      await starters(page);
      await page.goto(`${base}/app/columns`);
      const wrong: string[] = [];
      const expect = async (what: string, name: string) => {
        await page.waitForLoadState("load");
        const got = await focused(page);
        if (got !== name) wrong.push(`${what}: focus on "${got}", not "${name}"`);
        if (!(await focusOnScreen(page))) wrong.push(`${what}: the focused button is off screen`);
      };
      await page.getByRole("button", { name: "Move Water up" }).click();
      await expect("↑ Water", "Move Water up");
      // Moving three places is Enter three times: the focus stays on the arrow.
      const enter = async (what: string) => {
        const loaded = page.waitForEvent("load").then(() => true, () => false);
        await page.keyboard.press("Enter");
        if (await loaded) return await expect(what, "Move Water up");
        wrong.push(`${what}: Enter moved nothing (the focus is on "${await focused(page)}")`);
      };
      await enter("↑ Water again (Enter)");
      await enter("↑ Water a third time (Enter)");
      const order = (await columnOrder(page)).slice(0, 4).join(", ");
      if (order !== "Sleep, Water, Steps, Mood") wrong.push(`order after three ↑: ${order}`);
      await page.getByRole("button", { name: "Move Meditation down" }).click();
      await expect("↓ Meditation", "Move Meditation down");
      // At the end of the list ↓ is disabled (no focus): the focus goes to ↑ of the same column.
      await page.getByRole("button", { name: "Move Meditation down" }).click();
      await expect("↓ Meditation to the end", "Move Meditation up");
      await page.getByRole("button", { name: "Archive Steps" }).click();
      await expect("Archive Steps", "Restore Steps");
      await page.getByRole("button", { name: "Restore Steps" }).click();
      await expect("Restore Steps", "Archive Steps");
      await context.close();
      assert.deepEqual(wrong, []);
    });
  }

  for (const js of [true, false]) {
    const how = js ? "JavaScript on" : "JavaScript off";
    await t.step(`Today, ${how}: Clear takes a skip and a yes/no answer back`, async () => {
      const { context, page } = await member(run, { name: js ? "clearer_js" : "clearer", js });
      await starters(page);
      const sleep = page.getByRole("group", { name: "Sleep" });
      await sleep.getByRole("button", { name: "Skip day" }).click();
      await page.waitForLoadState("load");
      assert.equal(await sleep.getByText("Skipped").count(), 1);
      await sleep.getByRole("button", { name: "Clear Sleep" }).click();
      await page.waitForLoadState("load");
      assert.equal(await sleep.getByText("Skipped").count(), 0, "the skip is gone");
      assert.equal(await sleep.getByRole("button", { name: "Clear Sleep" }).count(), 0);

      const workout = page.getByRole("group", { name: "Workout" });
      await workout.getByRole("checkbox", { name: "Workout" }).check();
      await page.getByRole("button", { name: "Save", exact: true }).last().click();
      await page.waitForLoadState("load");
      await workout.getByRole("checkbox", { name: "Workout" }).uncheck();
      await page.getByRole("button", { name: "Save", exact: true }).last().click();
      await page.waitForLoadState("load");
      // A logged "no" is an answer; only Clear brings back "nothing logged".
      await workout.getByRole("button", { name: "Clear Workout" }).click();
      await page.waitForLoadState("load");
      assert.equal(await workout.getByRole("button", { name: "Clear Workout" }).count(), 0);
      const res = await page.request.get(`${base}/app/settings/export?format=json`);
      const exported = await res.json();
      const logged = exported.entries.filter((e: { values: Record<string, unknown> }) =>
        "sleep_hours" in e.values || "workout" in e.values
      );
      assert.deepEqual(logged, [], "nothing logged for Sleep or Workout");
      await context.close();
    });
  }

  for (const js of [true, false]) {
    const how = js ? "JavaScript on" : "JavaScript off";
    await t.step(`habit list, ${how}: Clear takes a skipped number cell back`, async () => {
      const { context, page } = await member(run, { name: js ? "cellclear_js" : "cellclear", js });
      await starters(page);
      // Today is Sunday 22 November 2026 on the test clock.
      const steps = page.locator("summary").and(
        page.getByLabel("Steps, Sunday 22 November", { exact: true }),
      );
      const open = page.locator("details[open]");
      await steps.click();
      await open.getByRole("button", { name: "Skip this day" }).click();
      await page.waitForFunction(() => !document.querySelector("details[open]"));
      assert.equal((await steps.innerText()).trim(), "–");
      if (js) await page.reload(); // the Clear button comes with the page that knows the skip
      await steps.click();
      await open.getByRole("button", { name: "Clear", exact: true }).click();
      await page.waitForFunction(() => !document.querySelector("details[open]"));
      assert.equal((await steps.innerText()).trim(), "", "the cell shows nothing logged");
      const res = await page.request.get(`${base}/app/settings/export?format=json`);
      const exported = await res.json() as { entries: { values: Record<string, unknown> }[] };
      assert.ok(exported.entries.every((e) => !("steps" in e.values)), "nothing stored");
      await context.close();
    });
  }

  await t.step("Columns: delete a column and its values, after a confirm page", async () => {
    const { context, page } = await member(run, { name: "deleter", js: false });
    await starters(page);
    await page.getByRole("textbox", { name: "Water" }).fill("6");
    await page.getByRole("button", { name: "Save", exact: true }).last().click();
    await page.waitForLoadState("load");
    await page.goto(`${base}/app/columns`);
    await page.getByText("Edit Water").click();
    await page.getByRole("button", { name: "Delete Water", exact: true }).click();
    await page.waitForLoadState("load");
    assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), "Delete Water?");
    await page.getByRole("button", { name: "Delete Water" }).click();
    await page.waitForLoadState("load");
    assert.match(
      await page.getByRole("status").first().innerText(),
      /Deleted Water and its 1 value/,
    );
    assert.ok(!(await columnOrder(page)).includes("Water"));
    const exported = await (await page.request.get(`${base}/app/settings/export?format=json`))
      .json();
    assert.ok(!JSON.stringify(exported).includes("water_glasses"), "gone from the export");
    await context.close();
  });

  await t.step(
    "390 px: brand, name and Sign out keep one line each, nothing off screen",
    async () => {
      const { context, page } = await member(run, { name: "alexandra_montgomery", js: false });
      await starters(page);
      const wrong: string[] = [];
      for (const path of ["/app", "/app/columns", "/app/history", "/app/settings"]) {
        await page.goto(base + path);
        for (
          const [what, selector] of [
            ["brand", "header .brand"],
            ["name", "header .member-name"],
            ["Sign out", "header .member button"],
          ]
        ) {
          const lines = await linesOf(page, selector);
          if (lines !== 1) wrong.push(`${path}: ${what} takes ${lines} lines`);
        }
        const nav = page.getByRole("navigation", { name: "App" });
        for (const link of await nav.getByRole("link").all()) {
          const box = await link.boundingBox();
          if (!box || box.x < 0 || box.x + box.width > 390) {
            wrong.push(`${path}: nav link ${await link.innerText()} outside the screen`);
          }
        }
        const overflow = await sidewaysOverflow(page);
        if (overflow > 0) wrong.push(`${path}: scrolls ${overflow}px sideways`);
      }
      await context.close();
      assert.deepEqual(wrong, []);
    },
  );

  await t.step("Columns is in the navigation, current on its page", async () => {
    const { context, page } = await member(run, { name: "navigator", js: false });
    const nav = page.getByRole("navigation", { name: "App" });
    await nav.getByRole("link", { name: "Columns" }).click();
    await page.waitForURL(`${base}/app/columns`);
    assert.equal(
      await nav.getByRole("link", { name: "Columns" }).getAttribute("aria-current"),
      "page",
    );
    await context.close();
  });

  await t.step("every changed page passes axe and is photographed at 390 and 1280", async () => {
    for (const v of VIEWPORTS) {
      const { context, page } = await member(run, { name: `shots_${v.name}`, width: v.width });
      // The zone the device reported is UTC here, so Today shows the notice.
      await starters(page);
      const sleep = page.getByRole("group", { name: "Sleep" });
      await sleep.getByRole("button", { name: "Skip day" }).click();
      await page.waitForLoadState("load");
      await assertAxeClean(page, `Today at ${v.name}`);
      await screenshot(page, "today", v.width);
      await page.evaluate(() => scrollTo(0, 0));
      await screenshot(page, "today-top", v.width, false);
      await page.goto(`${base}/app/columns`);
      await page.getByRole("button", { name: "Move Water up" }).click();
      await page.waitForLoadState("load");
      await assertAxeClean(page, `Columns after a move at ${v.name}`);
      await screenshot(page, "columns", v.width);
      await screenshot(page, "columns-after-move", v.width, false);
      await page.getByText("Edit Water").click();
      await page.getByRole("button", { name: "Delete Water", exact: true }).click();
      await page.waitForLoadState("load");
      await assertAxeClean(page, `Delete confirm at ${v.name}`);
      await screenshot(page, "delete-confirm", v.width);
      await context.close();
      const signup = await run.browser.newContext({ viewport: { width: v.width, height: 844 } });
      const p = await signup.newPage();
      await p.goto(`${base}/signup`);
      await assertAxeClean(p, `Sign-up at ${v.name}`);
      await screenshot(p, "signup", v.width);
      await signup.close();
    }
  });
});
