/**
 * The service worker's reminder side in Chromium (issue #24): a push message `{title, body, url}`
 * — delivered through the DevTools protocol as a push service would deliver it — is shown as a
 * notification carrying its address; an address of another site, or none, becomes Today; and the
 * notification's click opens its address in the site's open window.
 */

import assert from "node:assert/strict";
import type { CDPSession, Page } from "playwright-core";
import { browserTest, signUp } from "./_browser.ts";

interface Shown {
  title: string;
  body: string;
  url: string;
}

/** The notifications the worker's registration shows now. */
function shownNotifications(page: Page): Promise<Shown[]> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const list = await registration.getNotifications();
    return list.map((n) => ({ title: n.title, body: n.body, url: n.data?.url }));
  });
}

/** Closes every notification the worker's registration shows. */
function closeNotifications(page: Page): Promise<void> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    for (const n of await registration.getNotifications()) n.close();
  });
}

/**
 * Delivers `data` as a push message to the site's worker and waits for the notification titled
 * `title`, delivering it again every 3 s while none shows. CI once saw no new notification within
 * 10 s under load (1 run in about 40 here); whether an earlier one closed, so that a count missed
 * it, or Chromium dropped the DevTools delivery is not known, so both are allowed for: the title
 * finds it, and a repeat delivery changes nothing in the claim, which is what the worker shows for
 * a message it receives.
 */
async function push(
  { page, cdp, base, id }: { page: Page; cdp: CDPSession; base: string; id: string },
  data: string,
  title: string,
): Promise<Shown> {
  await closeNotifications(page);
  for (let i = 0; i < 120; i++) {
    if (i % 30 === 0) {
      await cdp.send("ServiceWorker.deliverPushMessage", {
        origin: base,
        registrationId: id,
        data,
      });
    }
    const shown = (await shownNotifications(page)).find((n) => n.title === title);
    if (shown) return shown;
    await new Promise((r) => setTimeout(r, 100));
  }
  return assert.fail(`no notification titled ${title} for ${data}`);
}

browserTest("notifications: a push message is shown, and its click opens its page", async (
  { browser, base },
  t,
) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  await context.grantPermissions(["notifications"], { origin: base });
  const page = await context.newPage();
  await signUp(page, base, "reminded");
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const cdp = await context.newCDPSession(page);
  const registered = new Promise<string>((resolve) => {
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const own = registrations.find((r) => r.scopeURL === `${base}/` && !r.isDeleted);
      if (own) resolve(own.registrationId);
    });
  });
  await cdp.send("ServiceWorker.enable");
  const target = { page, cdp, base, id: await registered };

  await t.step("JSON {title, body, url}: shown as sent, with its address", async () => {
    const message = { title: "Time to log", body: "Today is not logged yet.", url: "/app/history" };
    assert.deepEqual(await push(target, JSON.stringify(message), message.title), {
      title: "Time to log",
      body: "Today is not logged yet.",
      url: `${base}/app/history`,
    });
  });

  await t.step("another site's address, or none, becomes Today", async () => {
    const away = JSON.stringify({ title: "Phish", body: "x", url: "https://evil.example/app" });
    assert.equal((await push(target, away, "Phish")).url, `${base}/app`);
    const script = JSON.stringify({ title: "Script", body: "x", url: "javascript:alert(1)" });
    assert.equal((await push(target, script, "Script")).url, `${base}/app`);
    const bare = await push(target, "Plain text, not JSON", "Routine Tracker");
    assert.deepEqual(bare, {
      title: "Routine Tracker",
      body: "Plain text, not JSON",
      url: `${base}/app`,
    });
  });

  await t.step("the click opens the notification's page in the open window", async () => {
    // A click cannot be made on a headless notification, so the click handler's own function is
    // called in the worker; focusing needs the click's user activation and is refused here.
    const [worker] = context.serviceWorkers();
    assert.ok(worker, "the worker runs");
    const navigated = page.waitForURL(`${base}/app/history`);
    await worker.evaluate("openTarget('/app/history')").catch(() => {});
    await navigated;
    const away = page.waitForURL(`${base}/app`);
    await worker.evaluate("openTarget('https://evil.example/')").catch(() => {});
    await away;
  });
  await context.close();
});
