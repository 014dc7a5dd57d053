/**
 * Preferences in Chromium (issue #25), at 390 and 1280 px with axe, and once without JavaScript:
 * the theme chosen by role and accessible name colours every page (Dark on a light device, Light
 * on a dark one, System following the device), the first day of the week and the date style are
 * kept and the dates follow; the units say what they affect; /help is reached from the app.
 * (axe runs with JavaScript on: it is a script.) Screenshots of Settings (light and dark), Today in dark and /help go to test-output/screenshots/.
 */

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  assertAxeClean,
  browserTest,
  SCREENSHOT_DIR,
  sidewaysOverflow,
  signUp,
  VIEWPORTS,
} from "./_browser.ts";

/** `--bg` of each scheme (static/styles.css), as getComputedStyle writes it. */
const LIGHT_BG = "rgb(246, 244, 239)";
const DARK_BG = "rgb(18, 19, 22)";

function background(page: Page): Promise<string> {
  return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
}

async function savePreferences(
  page: Page,
  choice: { theme: string; week?: string; dates?: RegExp },
): Promise<void> {
  await page.getByRole("radio", { name: choice.theme, exact: true }).check();
  if (choice.week) {
    await page.getByLabel("First day of the week").selectOption({ label: choice.week });
  }
  if (choice.dates) {
    const dates = page.getByLabel("Dates");
    const label = await dates.locator("option").filter({ hasText: choice.dates }).textContent();
    await dates.selectOption({ label: label! });
  }
  await page.getByRole("button", { name: "Save preferences" }).click();
  await page.getByRole("status").filter({ hasText: "Preferences saved." }).waitFor();
}

/** The whole page, and the Preferences section alone when the page has it (to look at closely). */
async function shoot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOT_DIR).pathname, fullPage: true });
  const section = page.locator("#preferences");
  if (await section.count()) {
    await section.screenshot({ path: new URL(`${name}-section.png`, SCREENSHOT_DIR).pathname });
  }
}

browserTest(
  "preferences: theme, first day of the week and date style chosen by role, axe-clean, without JavaScript too",
  async ({ server, base, browser }, t) => {
    for (const viewport of VIEWPORTS) {
      await t.step(
        `${viewport.name} px: Dark on a light device, then Light and System on a dark one`,
        async () => {
          server.clock.advance(61_000); // sign-ups share the `auth` quota per address
          const context = await browser.newContext({ viewport, colorScheme: "light" });
          const page = await context.newPage();
          await signUp(page, base, `prefs${viewport.name}`);
          await page.goto(`${base}/app/settings#preferences`);
          assert.equal(await background(page), LIGHT_BG);
          await shoot(page, `settings-preferences-light-${viewport.name}`);
          const units = page.getByRole("combobox", { name: "Units of new columns" });
          assert.match((await units.getAttribute("aria-describedby"))!, /f-units-hint/);
          assert.match(
            await page.locator("#f-units-hint").innerText(),
            /converts nothing you logged/,
          );

          await savePreferences(page, { theme: "Dark", week: "Sunday", dates: /^November/ });
          assert.equal(await background(page), DARK_BG, "Dark on a light device");
          assert.equal(await page.getByLabel("First day of the week").inputValue(), "0");
          await assertAxeClean(page, `Settings, dark, at ${viewport.name}`);
          assert.equal(await sidewaysOverflow(page), 0);
          await shoot(page, `settings-preferences-dark-${viewport.name}`);

          await page.getByRole("link", { name: "Today" }).click();
          await page.getByText("Sunday, November 22, 2026").waitFor();
          assert.equal(await background(page), DARK_BG, "the theme holds on every app page");
          await assertAxeClean(page, `Today, dark, at ${viewport.name}`);
          await shoot(page, `today-dark-${viewport.name}`);

          await page.emulateMedia({ colorScheme: "dark" });
          await page.goto(`${base}/app/settings#preferences`);
          await savePreferences(page, { theme: "Light" });
          assert.equal(await background(page), LIGHT_BG, "Light on a dark device");
          await savePreferences(page, { theme: "System", dates: /^26 November/ });
          assert.equal(await background(page), DARK_BG, "System follows the dark device");

          await page.getByRole("link", { name: "Help" }).click();
          await page.getByRole("heading", { level: 1, name: "Help" }).waitFor();
          await page.getByRole("heading", { level: 2, name: "Skips, missing days and streaks" })
            .waitFor();
          await assertAxeClean(page, `/help, dark, at ${viewport.name}`);
          assert.equal(await sidewaysOverflow(page), 0);
          await shoot(page, `help-dark-${viewport.name}`);
          await page.emulateMedia({ colorScheme: "light" });
          await assertAxeClean(page, `/help, light, at ${viewport.name}`);
          await shoot(page, `help-light-${viewport.name}`);
          await context.close();
        },
      );
    }

    await t.step("without JavaScript: the form saves and the theme applies", async () => {
      server.clock.advance(61_000);
      const context = await browser.newContext({
        viewport: VIEWPORTS[0],
        javaScriptEnabled: false,
        colorScheme: "light",
      });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await signUp(page, base, "prefsnojs");
      await page.goto(`${base}/app/settings#preferences`);
      await savePreferences(page, { theme: "Dark", week: "Saturday", dates: /^November/ });
      // No page.evaluate without JavaScript (it runs in the page's world): read the markup.
      assert.equal(await page.locator("html").getAttribute("data-theme"), "dark");
      assert.equal(await page.getByLabel("First day of the week").inputValue(), "6");
      await page.getByRole("link", { name: "Today" }).click();
      await page.getByText("Sunday, November 22, 2026").waitFor();
      assert.equal(await page.locator("html").getAttribute("data-theme"), "dark");
      await context.close();
    });
  },
);
