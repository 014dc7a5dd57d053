/**
 * Groups of columns and pauses in Chromium (issue #25), by role and accessible name, at 390 and
 * 1280 px with JavaScript and at 390 px without: a group set on Columns heads its columns on
 * Today's form (a region) and in the habit list (a group); a pause added on /app/pauses over the
 * days away keeps Meditate's streak unbroken on Today, a pause of every column covering today
 * shows each column as paused, and deleting the first pause breaks the streak again. axe finds
 * nothing on the three pages; screenshots go to test-output/screenshots/.
 */

import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import {
  assertAxeClean,
  type BrowserRun,
  browserTest,
  proxy,
  saveScreenshot,
  sidewaysOverflow,
  signUp,
  VIEWPORTS,
} from "./_browser.ts";

/** The server's manual clock stands at 2026-11-22 12:00 UTC (a Sunday); the member's zone is UTC. */
const day = (n: number) => `2026-11-${String(n).padStart(2, "0")}`;
const AWAY = "Wednesday 11 November 2026 to Sunday 15 November 2026";

/** Meditate (a daily habit whose missing day breaks the streak), Stretch and Steps, and a log. */
async function seed(context: BrowserContext, base: string) {
  const daily = { op: "true", value: null, per: "day", times: null };
  await proxy(context, base, {
    action: "createColumn",
    key: "meditate",
    label: "Meditate",
    type: "boolean",
    goal: daily,
    missing_policy: "breaks",
  });
  await proxy(context, base, {
    action: "createColumn",
    key: "stretch",
    label: "Stretch",
    type: "boolean",
  });
  await proxy(context, base, {
    action: "createColumn",
    key: "steps",
    label: "Steps",
    type: "integer",
  });
  // Logged 1–10 and 16–21 November: away from 11 to 15; today not logged yet.
  for (let n = 1; n <= 21; n++) {
    if (n >= 11 && n <= 15) continue;
    await proxy(context, base, { action: "saveEntry", date: day(n), values: { meditate: true } });
  }
}

/** Sets a column's group through its Edit form on Columns. */
async function setGroup(page: Page, label: string, group: string) {
  const item = page.getByRole("listitem").filter({
    has: page.getByRole("heading", { name: label, exact: true }),
  });
  await item.getByText(`Edit ${label}`).click();
  await item.getByLabel("Group").fill(group);
  await item.getByRole("button", { name: "Save changes" }).click();
  await page.waitForLoadState("load");
  await assert.doesNotReject(page.getByText(`Saved ${label}.`).waitFor());
}

/** Meditate's streak line on Today's form. */
function meditateStreak(page: Page) {
  return page.getByRole("group", { name: "Meditate", exact: true }).locator(".streak");
}

/** Adds a pause on /app/pauses: the dates, and the columns to tick (none: every column). */
async function addPause(page: Page, from: string, to: string, tick: string[]) {
  await page.getByLabel("First day away").fill(from);
  await page.getByLabel("Last day away").fill(to);
  for (const label of tick) await page.getByRole("checkbox", { name: label }).check();
  await page.getByRole("button", { name: "Add pause" }).click();
  await page.waitForLoadState("load");
}

/** axe and the overflow check run in the page (`evaluate`): with JavaScript on only. */
async function checkPage(page: Page, js: boolean, where: string) {
  if (!js) return;
  await assertAxeClean(page, where);
  assert.equal(await sidewaysOverflow(page), 0, `no sideways scroll on ${where}`);
}

async function run(
  { browser, base, server }: BrowserRun,
  vp: { name: string; width: number; height: number },
  js: boolean,
) {
  server.clock.advance(61_000); // sign-ups share the `auth` quota of 10 a minute per address
  const context = await browser.newContext({
    viewport: { width: vp.width, height: vp.height },
    timezoneId: "UTC",
    javaScriptEnabled: js,
  });
  const page = await context.newPage();
  const tag = `${vp.name}${js ? "" : "-nojs"}`;
  await signUp(page, base, `groups_${tag.replace("-", "_")}`);
  await seed(context, base);

  await page.goto(`${base}/app/columns`);
  await setGroup(page, "Meditate", "Morning");
  await setGroup(page, "Stretch", "Morning");
  await checkPage(page, js, `Columns with groups at ${tag}`);
  await saveScreenshot(page, `groups-columns-${tag}.png`);

  await page.goto(`${base}/app`);
  const morning = page.getByRole("region", { name: "Morning" });
  await morning.getByRole("group", { name: "Meditate", exact: true }).waitFor();
  await morning.getByRole("group", { name: "Stretch", exact: true }).waitFor();
  const other = page.getByRole("region", { name: "Other" });
  await other.getByRole("group", { name: "Steps", exact: true }).waitFor();
  assert.equal(await morning.getByRole("group", { name: "Steps" }).count(), 0);
  const habitMorning = page.getByRole("group", { name: "Morning" }).filter({
    has: page.getByRole("button", { name: "Meditate, Sunday 22 November" }),
  });
  await habitMorning.getByRole("button", { name: "Stretch, Sunday 22 November" }).waitFor();
  assert.match(await meditateStreak(page).innerText(), /Streak: 6 days .*log today to keep it/);

  await page.getByRole("link", { name: "Pause days" }).click();
  await page.waitForURL(`${base}/app/pauses`);
  await addPause(page, day(11), day(15), ["Meditate"]);
  await page.getByText(`Paused ${AWAY}.`).waitFor();
  await addPause(page, day(22), day(25), []);
  await page.getByRole("listitem").filter({ hasText: "every column" }).waitFor();
  await checkPage(page, js, `Pauses at ${tag}`);
  await saveScreenshot(page, `groups-pauses-${tag}.png`);

  await page.goto(`${base}/app`);
  // 1–10 and 16–21 are one run: the paused 11–15 neither break nor count; today is paused.
  const line = await meditateStreak(page).innerText();
  assert.match(line, /Paused/);
  assert.match(line, /Streak: 16 days/);
  assert.doesNotMatch(line, /keep it/);
  const cell = page.getByRole("button", { name: "Meditate, Sunday 22 November" });
  assert.equal(await cell.getAttribute("aria-pressed"), "false");
  const described = await cell.getAttribute("aria-describedby");
  assert.equal(await page.locator(`#${described}`).textContent(), "paused");
  await checkPage(page, js, `Today with groups and pauses at ${tag}`);
  await saveScreenshot(page, `groups-today-${tag}.png`);

  await page.goto(`${base}/app/pauses`);
  await page.getByRole("button", { name: `Delete the pause ${AWAY}` }).click();
  await page.waitForLoadState("load");
  await page.getByText(`Deleted the pause ${AWAY}.`).waitFor();
  await page.goto(`${base}/app`);
  assert.match(await meditateStreak(page).innerText(), /Streak: 6 days/);
  const { pauses } = await proxy(context, base, { action: "listPauses" });
  assert.deepEqual(pauses.map((p: { start: string }) => p.start), [day(22)]);
  await context.close();
}

browserTest(
  "Groups and pauses: groups head Today's sections and a pause keeps a streak, by name, with and without JS",
  async (r, t) => {
    for (const vp of VIEWPORTS) {
      await t.step(`${vp.name} px, JavaScript on`, () => run(r, vp, true));
    }
    await t.step("390 px, JavaScript off", () => run(r, VIEWPORTS[0], false));
  },
);
