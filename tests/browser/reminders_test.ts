/**
 * The Reminders page in Chromium (issue #24), at 390 and 1280 px with axe, and once without
 * JavaScript: reminder times saved by role and accessible name, and "Send a test reminder"
 * reaching a local push service that verifies the VAPID JWT and decrypts the payload. Headless
 * Chromium's own PushManager subscribes at its vendor's push service, which a test cannot reach,
 * so the browser posts a subscription of the local push service exactly as the Reminders island
 * posts `PushSubscription.toJSON()`: same address, same JSON, same CSRF field, same origin.
 */

import assert from "node:assert/strict";
import { startServer } from "../_helpers.ts";
import { startPushService } from "../_push_service.ts";
import {
  assertAxeClean,
  launchBrowser,
  sidewaysOverflow,
  signUp,
  skipBrowserTests,
  VIEWPORTS,
} from "./_browser.ts";

Deno.test({
  name: "reminders page: times saved, a test reminder decrypted by the push service, axe-clean",
  ignore: skipBrowserTests,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await using server = await startServer({ config: { pushAllowLoopbackHttp: true } });
    await using service = startPushService();
    const browser = await launchBrowser();
    try {
      for (const viewport of VIEWPORTS) {
        await t.step(`${viewport.name} px: save a time, send a test reminder`, async () => {
          server.clock.advance(61_000); // sign-ups share the `auth` quota per address
          const context = await browser.newContext({ viewport, timezoneId: "UTC" });
          const page = await context.newPage();
          const base = server.url;
          await signUp(page, base, `rem${viewport.name}`);
          await page.goto(`${base}/app/settings`);
          await page.getByRole("link", { name: "Reminders" }).click();
          await page.waitForURL(`${base}/app/settings/reminders`);
          await assertAxeClean(page, `reminders at ${viewport.name}`);
          assert.equal(await sidewaysOverflow(page), 0);

          await page.getByLabel("Time 1").fill("21:00");
          await page.getByLabel("Streak-at-risk nudge at").fill("20:30");
          await page.getByRole("button", { name: "Save reminders" }).click();
          await page.getByText("Reminders saved.").waitFor();
          await page.getByText("Next: Sunday 22 November, 20:30.").waitFor();

          const key = await page.locator("[data-push]").getAttribute("data-vapid-key");
          const sub = await service.subscribe(key!);
          const status = await page.evaluate(async (json) => {
            const box = document.querySelector("[data-push]") as HTMLElement;
            const res = await fetch("/app/settings/push", {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ csrf: box.dataset.csrf, subscription: json }),
            });
            return res.status;
          }, sub.json);
          assert.equal(status, 201);
          const before = service.received.length;
          await page.getByRole("button", { name: "Send a test reminder" }).click();
          await page.getByText("Test reminder sent to 1 device.").waitFor();
          await assertAxeClean(page, `reminders after the test reminder at ${viewport.name}`);
          const got = (await service.waitFor(before + 1))[before];
          assert.deepEqual(got.payload, {
            title: "Routine Tracker",
            body: "This is a test reminder: reminders will reach this device.",
            url: "/app",
          });
          assert.equal(got.vapidKey, key);
          assert.deepEqual(service.refused, []);
          await context.close();
        });
      }

      await t.step(
        "without JavaScript: the times form works, the push switch stays hidden",
        async () => {
          server.clock.advance(61_000);
          const context = await browser.newContext({ javaScriptEnabled: false, timezoneId: "UTC" });
          const page = await context.newPage();
          await signUp(page, server.url, "remnojs");
          await page.goto(`${server.url}/app/settings/reminders`);
          assert.equal(
            await page.getByRole("button", { name: "Turn on notifications here" }).count(),
            0,
          );
          await page.getByLabel("Time 1").fill("07:15");
          await page.getByRole("button", { name: "Save reminders" }).click();
          await page.getByText("Reminders saved.").waitFor();
          await page.getByText("Next: Monday 23 November, 07:15.").waitFor();
          await page.getByRole("button", { name: "Send a test reminder" }).click();
          await page.getByText(
            "No device receives reminders yet: turn notifications on first, or choose e-mail.",
          )
            .waitFor();
          await context.close();
        },
      );
    } finally {
      await browser.close();
    }
  },
});
