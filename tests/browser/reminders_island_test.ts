/**
 * The Reminders island in Chromium (issue #25), by role and accessible name, with axe at 390 and
 * 1280 px. First without JavaScript: a reminder time is saved by the plain form, no push switch is
 * offered and the page is not hydrated. Then the same member's page with JavaScript, hydrated over
 * that markup (`data-hydrated`): the inline check refuses a seventh time with the
 * server's own message and no round trip, "Turn on notifications here" subscribes this device at
 * the local push service, the test reminder is answered in place and decrypted by that service,
 * "Turn off" removes the device — and the page stays within the JavaScript budget.
 *
 * Headless Chromium's own `PushManager.subscribe` registers at its vendor's push service, which a
 * test cannot reach; an init script makes `subscribe`/`getSubscription` hand out a subscription
 * of the local push service (tests/_push_service.ts: a real P-256 key pair and auth secret, as a
 * browser's would be), and everything after it — the island's POST, the delivery, RFC 8291
 * decryption, RFC 8292 VAPID — is the real thing.
 */

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { buildIslands } from "../../scripts/build_islands.ts";
import { startServer } from "../_helpers.ts";
import { startPushService } from "../_push_service.ts";
import {
  assertAxeClean,
  collectScripts,
  gzipSize,
  JS_BUDGET_GZIP,
  launchBrowser,
  saveScreenshot,
  signUp,
  skipBrowserTests,
  VIEWPORTS,
} from "./_browser.ts";

/** Makes the page's PushManager hand out `json` (the local push service's subscription). */
function fakeVendorPush(json: unknown): string {
  return `(() => {
    const json = ${JSON.stringify(json)};
    let current = null;
    const sub = { endpoint: json.endpoint, toJSON: () => json,
      unsubscribe: async () => { current = null; return true; } };
    PushManager.prototype.subscribe = async () => (current = sub);
    PushManager.prototype.getSubscription = async () => current;
  })();`;
}

/** Saves the times form with these fields filled, waiting for the flash. */
async function saveTimes(page: Page, times: string[], from: number): Promise<void> {
  for (const [i, at] of times.entries()) await page.getByLabel(`Time ${from + i}`).fill(at);
  await page.getByRole("button", { name: "Save reminders" }).click();
  await page.getByText("Reminders saved.").waitFor();
}

Deno.test({
  name:
    "reminders island: hydrates over the no-JS page, checks inline, switches push on and off, tests in place",
  ignore: skipBrowserTests,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await buildIslands();
    await using server = await startServer({ config: { pushAllowLoopbackHttp: true } });
    await using service = startPushService();
    const browser = await launchBrowser();
    const base = server.url;
    try {
      for (const viewport of VIEWPORTS) {
        await t.step(`${viewport.name} px`, async () => {
          server.clock.advance(61_000); // sign-ups share the `auth` quota per address
          const nojs = await browser.newContext({ viewport, javaScriptEnabled: false });
          const plain = await nojs.newPage();
          await signUp(plain, base, `island${viewport.name}`);
          await plain.goto(`${base}/app/settings/reminders`);
          assert.equal(
            await plain.getByRole("button", { name: "Turn on notifications here" }).count(),
            0,
          );
          await saveTimes(plain, ["07:15", "08:15"], 1);
          await saveTimes(plain, ["09:15", "10:15"], 3);
          assert.equal(await plain.locator("[data-hydrated]").count(), 0);
          await saveScreenshot(plain, `reminders-nojs-${viewport.name}.png`);
          const state = await nojs.storageState();
          await nojs.close();

          const context = await browser.newContext({ viewport, storageState: state });
          await context.grantPermissions(["notifications"], { origin: base });
          const page = await context.newPage();
          const scripts = collectScripts(page);
          await page.goto(`${base}/app/settings/reminders`);
          await page.locator('[data-hydrated="true"]').waitFor();
          const js = await gzipSize(await scripts.stop());
          assert.ok(js > 0 && js <= JS_BUDGET_GZIP, `${js} B of JavaScript (gzip)`);
          assert.equal(await page.getByLabel("Time 4").inputValue(), "10:15");
          await assertAxeClean(page, `hydrated reminders at ${viewport.name}`);

          // Inline check: a fifth and sixth time save; a seventh is refused before any request.
          await saveTimes(page, ["11:15", "12:15"], 5);
          await page.locator('[data-hydrated="true"]').waitFor();
          let posted = 0;
          page.on("request", (r) => {
            if (r.method() === "POST") posted++;
          });
          await page.getByLabel("Time 7").fill("13:15");
          await page.getByRole("button", { name: "Save reminders" }).click();
          await page.getByRole("alert").filter({
            hasText: "At most 6 reminder times: leave one empty.",
          }).waitFor();
          assert.equal(await page.getByLabel("Time 7").getAttribute("aria-invalid"), "true");
          assert.equal(await page.getByLabel("Time 7").inputValue(), "13:15");
          assert.equal(posted, 0);
          await assertAxeClean(page, `reminders inline error at ${viewport.name}`);
          await page.getByLabel("Time 7").fill("");

          // The push switch, through the local push service.
          const vapid = await page.locator("[data-push]").getAttribute("data-vapid-key");
          const sub = await service.subscribe(vapid!);
          await page.addInitScript(fakeVendorPush(sub.json));
          await page.reload();
          await page.locator('[data-hydrated="true"]').waitFor();
          await page.getByText("No device receives reminders yet.").waitFor();
          await page.getByRole("button", { name: "Turn on notifications here" }).click();
          await page.getByRole("status").filter({
            hasText: "Notifications are on for this device.",
          }).waitFor();
          await page.getByText("1 device receives reminders.").waitFor();
          assert.equal(
            await page.getByRole("button", { name: "Turn on notifications here" }).count(),
            0,
          );
          await saveScreenshot(page, `reminders-hydrated-${viewport.name}.png`);

          const before = service.received.length;
          const url = page.url();
          await page.getByRole("button", { name: "Send a test reminder" }).click();
          await page.getByRole("status").filter({ hasText: "Test reminder sent to 1 device." })
            .waitFor();
          assert.equal(page.url(), url, "answered in place, no reload");
          const got = (await service.waitFor(before + 1))[before];
          assert.equal(
            (got.payload as { body: string }).body,
            "This is a test reminder: reminders will reach this device.",
          );
          assert.equal(got.vapidKey, vapid);
          await assertAxeClean(page, `reminders after push on at ${viewport.name}`);

          await page.getByRole("button", { name: "Turn off notifications here" }).click();
          await page.getByRole("status").filter({
            hasText: "Notifications are off for this device.",
          }).waitFor();
          await page.getByText("No device receives reminders yet.").waitFor();
          await page.reload();
          await page.getByText("No device receives reminders yet.").waitFor();
          assert.deepEqual(service.refused, []);
          await context.close();
        });
      }
    } finally {
      await browser.close();
    }
  },
});
