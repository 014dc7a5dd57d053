/**
 * The Settings island in Chromium (issue #25), by role and accessible name, with axe at 390 and
 * 1280 px. First without JavaScript: a token is created and shown once, the Copy button that could
 * do nothing is not there (defect 4), a reload of that page says "already created" and makes no
 * second token, Revoke asks on a page of its own and the flash names the token (defect 7). Then the
 * same page with JavaScript, hydrated over the server's markup: inline checks stop an empty form
 * without a round trip, Copy copies, confirm() guards Revoke, the device's zone is offered — and
 * the page stays within the JavaScript budget.
 */

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  assertAxeClean,
  browserTest,
  collectScripts,
  gzipSize,
  JS_BUDGET_GZIP,
  saveScreenshot,
  sidewaysOverflow,
  signUp,
  VIEWPORTS,
} from "./_browser.ts";

/** The names of the member's tokens as the page lists them. */
async function listedTokens(page: Page): Promise<string[]> {
  const list = page.getByRole("list", { name: "Your API tokens" });
  if (await list.count() === 0) return [];
  return await list.getByRole("listitem").locator("strong").allTextContents();
}

/** The status message (a flash or a notice) with this text, waited for. */
async function status(page: Page, text: string | RegExp): Promise<void> {
  await page.getByRole("status").filter({ hasText: text }).first().waitFor();
}

browserTest(
  "Settings without JavaScript: no dead Copy button, a reload makes no second token, the flash names it",
  async ({ server, base, browser }, t) => {
    for (const viewport of VIEWPORTS) {
      await t.step(`${viewport.name} px`, async () => {
        server.clock.advance(61_000); // sign-ups share the `auth` quota per address
        const context = await browser.newContext({ viewport, javaScriptEnabled: false });
        const page = await context.newPage();
        await signUp(page, base, `nojs${viewport.name}`);
        await page.goto(`${base}/app/settings`);
        await page.getByLabel("Token name").fill("Laptop script");
        await page.getByRole("button", { name: "Create token" }).click();
        await page.getByRole("heading", { name: "Your new token “Laptop script”" }).waitFor();
        assert.ok(await page.getByLabel("Token", { exact: true }).inputValue());
        // Defect 4: without JavaScript there is no Copy button to press (it would do nothing).
        // (axe and the overflow check evaluate scripts, so they run on the same markup below.)
        assert.equal(await page.getByRole("button", { name: "Copy" }).count(), 0);
        await saveScreenshot(page, `settings-token-nojs-${viewport.name}.png`);

        // Defect 7: the browser sends the same form again; the server says so and mints nothing.
        await page.reload();
        await status(page, /The token “Laptop script” was already created/);
        assert.equal(await page.getByRole("heading", { name: /Your new token/ }).count(), 0);
        assert.deepEqual(await listedTokens(page), ["Laptop script"]);

        await page.getByRole("button", { name: "Revoke" }).click();
        await page.getByRole("heading", { name: "Revoke token?" }).waitFor();
        await page.getByRole("button", { name: "Revoke" }).click();
        await status(page, "The token “Laptop script” was revoked: it is refused from now on.");
        assert.deepEqual(await listedTokens(page), []);
        await context.close();
      });
    }
  },
  { islands: true },
);

/**
 * Signs up with JavaScript on (sign-up saves the device's zone, New York), moves the account to
 * Paris through the hydrated profile form, and returns the JavaScript (gzip) the page loaded.
 */
async function hydratedSettings(page: Page, base: string, username: string): Promise<number> {
  await signUp(page, base, username);
  const scripts = collectScripts(page);
  await page.goto(`${base}/app/settings`);
  await page.locator(".settings[data-hydrated]").waitFor();
  const js = await gzipSize(await scripts.stop());
  await page.getByRole("combobox", { name: "Time zone" }).fill("Europe/Paris");
  await page.getByRole("button", { name: "Save profile" }).click();
  await status(page, /saved/i);
  await page.locator(".settings[data-hydrated]").waitFor();
  return js;
}

browserTest(
  "Settings hydrated: inline checks, Copy, confirm() before Revoke, the device's zone, within budget",
  async ({ server, base, browser }, t) => {
    for (const viewport of VIEWPORTS) {
      await t.step(`${viewport.name} px`, async () => {
        server.clock.advance(61_000);
        const context = await browser.newContext({
          viewport,
          timezoneId: "America/New_York",
          permissions: ["clipboard-read", "clipboard-write"],
        });
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
        page.on("pageerror", (e) => errors.push(String(e)));
        const js = await hydratedSettings(page, base, `js${viewport.name}`);
        assert.ok(js > 0 && js <= JS_BUDGET_GZIP, `${js} B of JavaScript (gzip)`);
        await assertAxeClean(page, `hydrated settings at ${viewport.name}`);

        // Inline check: an empty name is refused beside the field, and nothing is sent.
        const posts: string[] = [];
        page.on("request", (r) => r.method() === "POST" && posts.push(r.url()));
        await page.getByRole("button", { name: "Create token" }).click();
        const name = page.getByRole("textbox", { name: "Token name" });
        await page.getByText("Give the token a name.").waitFor();
        assert.equal(await name.getAttribute("aria-invalid"), "true");
        assert.ok(await name.evaluate((el) => el === document.activeElement), "focus on the field");
        assert.deepEqual(posts, []);
        await assertAxeClean(page, `an inline error at ${viewport.name}`);

        // The device's zone, offered and taken.
        await page.getByRole("button", { name: "Use America/New_York" }).click();
        assert.equal(
          await page.getByRole("combobox", { name: "Time zone" }).inputValue(),
          "America/New_York",
        );

        await name.fill("Laptop script");
        await page.getByRole("button", { name: "Create token" }).click();
        await page.getByRole("heading", { name: "Your new token “Laptop script”" }).waitFor();
        const copy = page.getByRole("button", { name: "Copy" });
        await copy.waitFor();
        await copy.click();
        await page.getByText("Copied. Paste it where your program keeps secrets.").waitFor();
        const token = await page.getByLabel("Token", { exact: true }).inputValue();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
        assert.equal(await sidewaysOverflow(page), 0);
        await assertAxeClean(page, `a new token with JS at ${viewport.name}`);
        await saveScreenshot(page, `settings-token-js-${viewport.name}.png`);

        // A reload sends the form again: "already created", still one token.
        await page.reload();
        await status(page, /The token “Laptop script” was already created/);
        await page.locator(".settings[data-hydrated]").waitFor();
        assert.deepEqual(await listedTokens(page), ["Laptop script"]);
        await assertAxeClean(page, `a resubmitted token form at ${viewport.name}`);
        await saveScreenshot(page, `settings-token-again-${viewport.name}.png`);

        // confirm() guards Revoke: dismissed, nothing is sent; accepted, revoked at once.
        const asked: string[] = [];
        page.once("dialog", (d) => {
          asked.push(d.message());
          d.dismiss();
        });
        posts.length = 0;
        await page.getByRole("button", { name: "Revoke" }).click();
        assert.deepEqual(asked, [
          "Revoke the token “Laptop script”? Programs using it stop at once.",
        ]);
        assert.deepEqual(posts, []);
        assert.deepEqual(await listedTokens(page), ["Laptop script"]);
        page.once("dialog", (d) => d.accept());
        await page.getByRole("button", { name: "Revoke" }).click();
        await status(page, "The token “Laptop script” was revoked: it is refused from now on.");
        assert.deepEqual(await listedTokens(page), []);
        await page.getByRole("button", { name: "Use America/New_York" }).waitFor();
        await assertAxeClean(page, `after revoking at ${viewport.name}`);
        await saveScreenshot(page, `settings-js-${viewport.name}.png`);
        // The one failed load is the resubmission's own answer, 409 "already created".
        const resubmitted = "Failed to load resource: the server responded with a status of 409";
        assert.deepEqual(errors.filter((e) => !e.startsWith(resubmitted)), []);
        assert.equal(errors.length, 1, errors.join("\n"));
        await context.close();
      });
    }
  },
  { islands: true },
);
