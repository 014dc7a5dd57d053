/**
 * Offline logging in Chromium (issue #24): after a first visit the service worker keeps Today and
 * the days seen; a member who loses the connection logs three values on two days, reloads, comes
 * back online, and each value is stored exactly once — read back through the API, and counted in
 * the record's write version. The page says what is waiting to be sent, and passes axe while it
 * does.
 */

import assert from "node:assert/strict";
import type { BrowserContext, Page, Route } from "playwright-core";
import { assertAxeClean, browserTest, signUp } from "./_browser.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import type { TestServer } from "../_helpers.ts";

/** The server's manual clock starts at 2026-11-22 12:00 UTC (a Sunday); the member's zone is UTC. */
const TODAY = "2026-11-22";
const YESTERDAY = "2026-11-21";

/** The text of the waiting-changes status (static/offline.js), "" when it has nothing to say. */
function statusText(page: Page): Promise<string> {
  return page.getByRole("status").filter({ hasText: /./ }).or(page.locator("#offline-status"))
    .first().innerText().catch(() => "");
}

/** Clicks Save and waits for the page it leads to (the worker's answer, or its redirect). */
async function save(page: Page): Promise<void> {
  await Promise.all([
    page.waitForEvent("load"),
    page.getByRole("button", { name: "Save", exact: true }).last().click(),
  ]);
}

async function waitForStatus(page: Page, re: RegExp): Promise<string> {
  try {
    await page.waitForFunction(
      (source) =>
        new RegExp(source).test(document.getElementById("offline-status")?.innerText ?? ""),
      re.source,
      { timeout: 10_000 },
    );
  } catch {
    assert.fail(`status never matched ${re}: "${await statusText(page)}"`);
  }
  return await statusText(page);
}

/**
 * Offline for the pages and for the service worker: Chromium's network emulation
 * (`setOffline`) does not reach a worker's own fetches, so those are failed as a dropped
 * connection would fail them (microsoft/playwright#2311).
 */
async function goOffline(context: BrowserContext): Promise<void> {
  await context.setOffline(true);
  await context.route("**", dropWorkerFetch);
}

async function goOnline(context: BrowserContext): Promise<void> {
  await context.unroute("**", dropWorkerFetch);
  await context.setOffline(false);
}

function dropWorkerFetch(route: Route) {
  return route.request().serviceWorker() ? route.abort("internetdisconnected") : route.continue();
}

async function memberIdOf(server: TestServer, username: string): Promise<string> {
  const id = (await server.kv.get<string>(keys.username(username))).value;
  assert.ok(id, `${username} is registered`);
  return id;
}

/** How many writes the member's record has taken (each applied change bumps it once). */
async function writesOf(server: TestServer, memberId: string): Promise<bigint> {
  return (await server.kv.get<Deno.KvU64>(keys.recordVersion(memberId))).value?.value ?? 0n;
}

/** The day's stored values, read through `POST /api/proxy` with the browser's session. */
async function storedValues(base: string, session: string, day: string) {
  const res = await fetch(`${base}/api/proxy`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${session}` },
    body: JSON.stringify({ action: "getEntries", start: day, end: day }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return (body.entries as { values: Record<string, unknown> }[])[0]?.values ?? {};
}

/** A change made on another device: `saveEntry` through the API. */
async function saveElsewhere(
  base: string,
  session: string,
  day: string,
  values: Record<string, unknown>,
): Promise<void> {
  const res = await fetch(`${base}/api/proxy`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${session}` },
    body: JSON.stringify({ action: "saveEntry", date: day, values }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
}

browserTest("offline: three values on two days logged offline are stored once each", async (
  { browser, base, server },
  t,
) => {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    timezoneId: "UTC",
  });
  // the device's date is the server's (its manual clock); a later step moves it a day on
  await context.clock.setFixedTime(new Date(`${TODAY}T12:00:00Z`));
  const page = await context.newPage();
  await signUp(page, base, "traveller");
  await page.getByRole("button", { name: "Add all starter columns" }).click();
  await page.waitForLoadState("load");
  const memberId = await memberIdOf(server, "traveller");
  const session = (await context.cookies()).find((c) => c.name === "rt_session")?.value;
  assert.ok(session, "signed in");

  await t.step("the first visit installs the worker, which then controls the pages", async () => {
    await page.goto(`${base}/app`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    // the days the member will log offline, seen once online (as a member's own visits would)
    await page.goto(`${base}/app?day=${YESTERDAY}`);
    await page.goto(`${base}/app`);
  });

  await t.step("online, a save passes through the worker as before: stored, and said", async () => {
    await page.getByLabel("Steps", { exact: true }).fill("9400");
    await save(page);
    await page.getByText("Saved today.").waitFor();
    assert.equal((await storedValues(base, session, TODAY)).steps, 9400);
  });

  const before = await writesOf(server, memberId);
  await t.step("offline, each save is kept on the device and the page lists it", async () => {
    await goOffline(context);
    await page.getByLabel("Water", { exact: true }).fill("3");
    await save(page);
    await waitForStatus(page, /1 change waiting to be sent/);
    await page.getByRole("checkbox", { name: "Workout", exact: true }).check();
    await save(page);
    await waitForStatus(page, /2 changes waiting to be sent/);
    await page.getByRole("link", { name: "← Previous day" }).click();
    await page.waitForURL(`${base}/app?day=${YESTERDAY}`);
    await page.getByLabel("Sleep", { exact: true }).fill("7.5");
    await save(page);
    await page.waitForURL(`${base}/app?day=${YESTERDAY}`);
    const text = await waitForStatus(page, /3 changes waiting to be sent/);
    assert.match(text, /You are offline/);
    assert.match(text, /Sunday 22 November 2026: Water/);
    assert.match(text, /Sunday 22 November 2026: Workout/);
    assert.match(text, /Saturday 21 November 2026: Sleep/);
    assert.equal(await writesOf(server, memberId), before, "nothing reached the server yet");
    await assertAxeClean(page, "a day offline with changes waiting");
  });

  await t.step(
    "a reload offline still shows the page, its waiting values and the list",
    async () => {
      await page.goto(`${base}/app`);
      await waitForStatus(page, /3 changes waiting to be sent/);
      assert.doesNotMatch(await statusText(page), /This copy of Today is from/);
      assert.equal(await page.getByLabel("Water", { exact: true }).inputValue(), "3");
      assert.equal(
        await page.getByRole("checkbox", { name: "Workout", exact: true }).isChecked(),
        true,
      );
    },
  );

  await t.step("offline the next morning, Today's copy says which day it logs", async () => {
    await context.clock.setFixedTime(new Date("2026-11-23T08:00:00Z"));
    await page.goto(`${base}/app`);
    await waitForStatus(page, /This copy of Today is from Sunday 22 November 2026/);
    await context.clock.setFixedTime(new Date(`${TODAY}T12:30:00Z`));
  });

  await t.step("back online, the answer to one change is lost: it is sent again", async () => {
    // The server applies yesterday's change but its answer never reaches the worker, which
    // therefore keeps the change and sends it again later (with the same idempotency key).
    // Later tries fail too until this step ends, as on a flaky network: going online and the
    // reload each ask the worker to flush, and had a second flush got through, whether the change
    // still waited when the page was read would depend on timing (CI failed so under load).
    let lost = false;
    await context.route(
      (url) => url.pathname === "/app" && url.search === `?day=${YESTERDAY}`,
      async (route) => {
        const request = route.request();
        if (request.method() !== "POST" || !request.serviceWorker()) {
          return await route.continue();
        }
        if (!lost) {
          lost = true;
          await route.fetch({ maxRedirects: 0 });
        }
        await route.abort("connectionreset");
      },
    );
    await goOnline(context);
    await page.reload();
    await waitForStatus(page, /^1 change waiting to be sent:\s+Saturday 21 November 2026: Sleep/);
    assert.ok(lost, "the worker sent yesterday's change");
    assert.deepEqual(await storedValues(base, session, YESTERDAY), { sleep_hours: 7.5 });
    // meanwhile the member corrects yesterday on another device
    await saveElsewhere(base, session, YESTERDAY, { sleep_hours: 8 });
    await context.unrouteAll({ behavior: "wait" });
  });

  await t.step("sent again, the change is not applied twice: nothing lost or doubled", async () => {
    await page.reload();
    await page.waitForFunction(() =>
      (document.getElementById("offline-status")?.innerText ?? "x").trim() === ""
    );
    assert.deepEqual(await storedValues(base, session, TODAY), {
      steps: 9400,
      water_glasses: 3,
      workout: true,
    });
    assert.deepEqual(
      await storedValues(base, session, YESTERDAY),
      { sleep_hours: 8 },
      "the repeat of an applied change does not undo the newer one",
    );
    assert.equal(
      await writesOf(server, memberId),
      before + 4n,
      "three changes from the queue and one from elsewhere, each written once",
    );
  });
  await t.step("signing out deletes the device's copies: offline, Today is not shown", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForLoadState("load");
    await goOffline(context);
    const res = await page.goto(`${base}/app`);
    assert.equal(res?.status(), 503);
    await page.getByRole("heading", { name: "You are offline" }).waitFor();
    assert.equal(
      await page.getByLabel("Water", { exact: true }).count(),
      0,
      "no copy of the member's Today",
    );
    await assertAxeClean(page, "the offline page");
    await goOnline(context);
  });
  await context.close();
});
