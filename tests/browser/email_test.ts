/**
 * E-mail in Chromium (issue #24), at 390 and 1280 px with axe, and once without JavaScript, against
 * a local SMTP server (tests/_smtp_server.ts): a member adds an address in Settings and verifies
 * it by the mailed link; signed out, "Forgot password?" on /signin mails a reset link that sets a
 * new password and signs out the other device; a reminder chosen "by e-mail" reaches the inbox
 * ("Send a test reminder"). Without SMTP, /signin and /forgot-password say the
 * operator resets passwords. Screenshots of each page go to test-output/screenshots/.
 */

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { startServer } from "../_helpers.ts";
import { linkIn, type LocalSmtp, startSmtpServer } from "../_smtp_server.ts";
import {
  assertAxeClean,
  launchBrowser,
  PASSWORD,
  SCREENSHOT_DIR,
  sidewaysOverflow,
  signUp,
  skipBrowserTests,
  VIEWPORTS,
} from "./_browser.ts";

const NEW_PASSWORD = "another long passphrase";

/**
 * Checks the page at `where` (axe, no sideways scroll) and keeps a screenshot of it. With
 * JavaScript off, Playwright cannot evaluate axe in the page: the screenshot only (the same pages
 * pass axe in the runs with JavaScript).
 */
async function look(page: Page, where: string, shot: string): Promise<void> {
  if (!where.includes("nojs")) {
    await assertAxeClean(page, where);
    assert.equal(await sidewaysOverflow(page), 0, `${where} scrolls sideways`);
  }
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: new URL(`${shot}.png`, SCREENSHOT_DIR).pathname, fullPage: true });
}

/** Adds `address` in Settings and opens the link mailed to it. */
async function addAndVerify(
  page: Page,
  base: string,
  smtp: LocalSmtp,
  address: string,
  tag: string,
) {
  await page.goto(`${base}/app/settings`);
  const section = page.getByRole("region", { name: "E-mail" });
  await section.getByLabel("E-mail address").fill(address);
  const after = smtp.received.length;
  await section.getByRole("button", { name: "Send verification link" }).click();
  await page.getByText(`A link is on its way to ${address}.`).waitFor();
  await section.getByText("Waiting for you to open the link").waitFor();
  await look(page, `settings e-mail pending ${tag}`, `email-settings-pending-${tag}`);
  await page.goto(linkIn(await smtp.waitFor(address, { after }), "/verify-email"));
  await page.getByRole("heading", { name: "Address verified" }).waitFor();
  await look(page, `verify-email ${tag}`, `email-verified-${tag}`);
  await page.getByRole("link", { name: "Go to Settings" }).click();
  await page.getByRole("region", { name: "E-mail" }).getByText(address).waitFor();
}

/** Settings → Reminders: reminders by e-mail, and the test reminder reaching the inbox. */
async function emailReminder(
  page: Page,
  base: string,
  smtp: LocalSmtp,
  address: string,
  tag: string,
) {
  await page.goto(`${base}/app/settings/reminders`);
  await page.getByLabel("Time 1").fill("21:00");
  await page.getByLabel("Send reminders by").selectOption({ label: "E-mail" });
  await page.getByRole("button", { name: "Save reminders" }).click();
  await page.getByText("Reminders saved.").waitFor();
  assert.equal(await page.getByLabel("Send reminders by").inputValue(), "email");
  const after = smtp.received.length;
  await page.getByRole("button", { name: "Send a test reminder" }).click();
  await page.getByText("Test reminder e-mailed to your verified address.").waitFor();
  await look(page, `reminders by e-mail ${tag}`, `email-reminders-${tag}`);
  const mail = await smtp.waitFor(address, { after });
  assert.equal(mail.subject, "Routine Tracker");
  assert.match(mail.text, /This is a test reminder/);
  assert.match(mail.text, /Log it: http:\/\/127\.0\.0\.1:\d+\/app/);
}

/** Signed out: "Forgot password?", the mailed link, a new password, then sign in with it. */
async function resetByMail(page: Page, base: string, smtp: LocalSmtp, user: string, tag: string) {
  await page.goto(`${base}/signin`);
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await page.getByRole("heading", { name: "Forgot your password?" }).waitFor();
  await look(page, `forgot-password ${tag}`, `email-forgot-${tag}`);
  await page.getByLabel("E-mail address").fill(`${user}@example.org`);
  const after = smtp.received.length;
  await page.getByRole("button", { name: "Send reset link" }).click();
  await page.getByRole("status").getByText("If an account has this verified address").waitFor();
  await page.goto(linkIn(await smtp.waitFor(`${user}@example.org`, { after }), "/reset-password"));
  await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
  await look(page, `reset-password ${tag}`, `email-reset-${tag}`);
  await page.getByLabel("New password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Set new password" }).click();
  await page.getByText("Password changed. Every device is signed out").waitFor();
  await page.getByLabel("Username").fill(user);
  await page.getByLabel("Password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}/app`);
}

Deno.test({
  name:
    "email pages: add and verify an address, then reset a forgotten password by the mailed link",
  ignore: skipBrowserTests,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await using smtp = await startSmtpServer();
    await using server = await startServer({
      config: { smtp: { url: smtp.url, from: "tracker@example.org" }, rateLimitMultiplier: 5 },
    });
    const browser = await launchBrowser();
    try {
      const runs = [
        ...VIEWPORTS.map((v) => ({ viewport: v, js: true, tag: v.name })),
        { viewport: VIEWPORTS[0], js: false, tag: "390-nojs" },
      ];
      for (const { viewport, js, tag } of runs) {
        await t.step(`${tag}: add, verify, forget, reset`, async () => {
          const user = `mail${tag.replace("-", "")}`;
          const options = { viewport, timezoneId: "UTC", javaScriptEnabled: js };
          const member = await browser.newContext(options);
          const page = await member.newPage();
          await signUp(page, server.url, user);
          await addAndVerify(page, server.url, smtp, `${user}@example.org`, tag);
          await emailReminder(page, server.url, smtp, `${user}@example.org`, tag);
          const other = await browser.newContext(options);
          await resetByMail(await other.newPage(), server.url, smtp, user, tag);
          // the first device's session ended with the reset
          await page.goto(`${server.url}/app`);
          await page.waitForURL(/\/signin/);
          await page.getByLabel("Username").fill(user);
          await page.getByLabel("Password").fill(PASSWORD);
          await page.getByRole("button", { name: "Sign in" }).click();
          await page.getByText("Username or password is incorrect.").first().waitFor();
          await member.close();
          await other.close();
        });
      }
    } finally {
      await browser.close();
    }
  },
});

Deno.test({
  name:
    "email pages: without SMTP_URL, sign-in and forgot-password say the operator resets passwords",
  ignore: skipBrowserTests,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using server = await startServer();
    const browser = await launchBrowser();
    try {
      for (const viewport of VIEWPORTS) {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        await page.goto(`${server.url}/signin`);
        await page.getByText("The operator of this service resets passwords").waitFor();
        await look(
          page,
          `signin without smtp ${viewport.name}`,
          `email-signin-nosmtp-${viewport.name}`,
        );
        await page.getByRole("link", { name: "How" }).click();
        await page.getByRole("heading", { name: "Forgot your password?" }).waitFor();
        await page.getByText("deno task admin reset-password").waitFor();
        assert.equal(await page.getByRole("button", { name: "Send reset link" }).count(), 0);
        await look(
          page,
          `forgot without smtp ${viewport.name}`,
          `email-forgot-nosmtp-${viewport.name}`,
        );
        await context.close();
      }
    } finally {
      await browser.close();
    }
  },
});
