/**
 * The member's whole journey in Chromium, driven by role and accessible name only (issue #11, "How
 * it is checked"): sign up → starter columns → seven days logged with the day navigation, one
 * skipped → History's streak, chart and calendar → a token from Settings read once → `get_streak`
 * on /api/mcp returns the page's streak → Revoke → 401 → Export CSV → Delete account → signing in
 * fails and the old token is refused. Then the core of it with JavaScript off.
 */

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { callTool } from "../http/_oauth.ts";
import { assertAxeClean, browserTest, signIn, signUp } from "./_browser.ts";

/** The server's manual clock stands at 2026-11-22 12:00 UTC; the member's zone is UTC. */
const TODAY = "2026-11-22";
const WEEK = ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20", "2026-11-21"];
const SKIPPED = "2026-11-19";

/** "Current streak 6 measurements" on the History page → 6. */
async function historyStreak(page: Page): Promise<number> {
  const text = await page.getByRole("main").innerText();
  const m = text.match(/Current streak\s+(\d+)\s+\w+/);
  assert.ok(m, `History states the current streak:\n${text}`);
  return Number(m[1]);
}

/** The token the Settings page shows once, after "Create token". */
async function createToken(page: Page, name: string): Promise<string> {
  await page.getByLabel("Token name").fill(name);
  await page.getByRole("button", { name: "Create token" }).click();
  const token = await page.getByRole("textbox", { name: "Token", exact: true }).inputValue();
  assert.match(token, /^rt_/);
  return token;
}

/** Logs Sleep on the day shown, or skips it; Today stays on that day afterwards. */
async function logSleep(page: Page, day: string, hours: string | "skip"): Promise<void> {
  const sleep = page.getByRole("group", { name: "Sleep" });
  if (hours === "skip") {
    await sleep.getByRole("button", { name: "Skip day" }).click();
  } else {
    await sleep.getByRole("textbox", { name: "Sleep" }).fill(hours);
    await page.getByRole("button", { name: "Save", exact: true }).click();
  }
  await page.waitForLoadState("load");
  const sleepNow = page.getByRole("group", { name: "Sleep" });
  if (hours === "skip") assert.match(await sleepNow.innerText(), /Skipped/, day);
  else assert.equal(await sleepNow.getByRole("textbox").inputValue(), hours, day);
}

browserTest(
  "Member journey in Chromium: sign up to delete account, then without JavaScript",
  async (
    { base, browser },
    t,
  ) => {
    const context = await browser.newContext({ timezoneId: "UTC", acceptDownloads: true });
    const page = await context.newPage();
    page.on("dialog", (d) => d.accept()); // Revoke asks "Revoke the token …?" first
    let streak = -1;
    let revokedToken = "";
    let keptToken = "";

    await t.step("sign up and add the starter columns", async () => {
      await signUp(page, base, "journey");
      await page.getByRole("button", { name: "Add all starter columns" }).click();
      await page.getByRole("link", { name: "Today" }).click();
      for (const label of ["Sleep", "Steps", "Mood", "Workout"]) {
        await page.getByRole("group", { name: label }).waitFor();
      }
      assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), "Today");
    });

    await t.step("seven days logged with previous/next day, one skipped", async () => {
      for (let i = 0; i < WEEK.length; i++) {
        await page.getByRole("link", { name: "← Previous day" }).click();
      }
      assert.equal(new URL(page.url()).searchParams.get("day"), WEEK[0]);
      for (const day of WEEK) {
        assert.equal(new URL(page.url()).searchParams.get("day"), day);
        await logSleep(page, day, day === SKIPPED ? "skip" : "7.5");
        if (day === SKIPPED) await assertAxeClean(page, "Today, a back-filled day with a skip");
        await page.getByRole("link", { name: "Next day →" }).click();
      }
      assert.equal(new URL(page.url()).pathname, "/app", "the last Next day leads to Today");
      await logSleep(page, TODAY, "8");
      // Skip days are neutral (spec: get_streak's rule): six qualifying entries in a row.
      assert.match(await page.getByRole("group", { name: "Sleep" }).innerText(), /Streak: 6 \w+/);
    });

    await t.step("History shows the streak, a chart and the year calendar", async () => {
      await page.getByRole("link", { name: "History" }).click();
      await page.getByRole("navigation", { name: "Columns" }).getByRole("link", { name: "Sleep" })
        .click();
      streak = await historyStreak(page);
      assert.equal(streak, 6);
      const images = page.getByRole("img", { name: /^Sleep/ });
      assert.equal(await images.count(), 2, "a chart and the calendar, each named Sleep …");
      const names = await images.evaluateAll((els) =>
        els.map((e) => e.querySelector("title")?.textContent ?? e.getAttribute("aria-label") ?? "")
      );
      assert.ok(names.some((n) => /calendar/i.test(n)), names.join(" / "));
      assert.ok(names.some((n) => /7\.5|8/.test(n) && !/calendar/i.test(n)), names.join(" / "));
      const days = await page.getByRole("region", { name: "Days" }).innerText();
      for (const day of ["16", "17", "18", "20", "21", "22"]) assert.match(days, new RegExp(day));
    });

    await t.step("a token made in Settings reads the same streak through /api/mcp", async () => {
      await page.getByRole("link", { name: "Settings", exact: true }).click();
      revokedToken = await createToken(page, "Journey agent");
      await assertAxeClean(page, "Settings with a new token shown once");
      await page.getByRole("link", { name: "Settings", exact: true }).click(); // a GET: the token is gone
      assert.equal(await page.getByRole("textbox", { name: "Token", exact: true }).count(), 0);
      assert.ok(!(await page.content()).includes(revokedToken), "shown only once");
      const r = await callTool(base, revokedToken, "get_streak", { metric: "sleep_hours" });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const result = r.body.result as {
        isError: boolean;
        structuredContent: { current: { length: number } };
      };
      assert.equal(result.isError, false, JSON.stringify(r.body));
      assert.equal(result.structuredContent.current.length, streak);
    });

    await t.step("Revoke: the token's next call gets 401", async () => {
      keptToken = await createToken(page, "Kept token");
      const list = page.getByRole("list", { name: "Your API tokens" });
      const item = list.getByRole("listitem").filter({ hasText: "Journey agent" });
      await item.getByRole("button", { name: "Revoke" }).click();
      // The island asks confirm() first and then posts: wait for the answer, not the old page.
      await page.getByText("The token “Journey agent” was revoked").waitFor();
      assert.equal(
        await list.getByRole("listitem").filter({ hasText: "Journey agent" }).count(),
        0,
      );
      assert.equal(
        (await callTool(base, revokedToken, "get_streak", { metric: "sleep_hours" })).status,
        401,
      );
      assert.equal((await callTool(base, keptToken, "list_columns")).status, 200);
    });

    await t.step("Export CSV downloads the record", async () => {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Export CSV" }).click(),
      ]);
      assert.match(download.suggestedFilename(), /\.csv$/);
      const csv = await Deno.readTextFile(await download.path());
      assert.match(csv.split("\n")[0], /date/);
      for (const day of [...WEEK, TODAY]) assert.match(csv, new RegExp(day));
      assert.match(csv, /7\.5/);
    });

    await t.step(
      "Delete account: signing in fails, the old session and token are refused",
      async () => {
        const oldSession = await context.storageState();
        await page.getByLabel("Type your username (journey) to confirm").fill("journey");
        await page.getByRole("button", { name: "Delete account" }).click();
        await page.waitForLoadState("load");
        assert.ok(!new URL(page.url()).pathname.startsWith("/app"), page.url());
        const after = await signIn(page, base, "journey");
        assert.equal(new URL(after).pathname, "/signin", "signing in fails");
        await page.getByRole("alert").first().waitFor();
        await assertAxeClean(page, "Sign in, refused");
        assert.equal((await callTool(base, keptToken, "list_columns")).status, 401);
        const stale = await browser.newContext({ storageState: oldSession });
        const back = await (await stale.newPage()).goto(`${base}/app/history`);
        assert.equal(new URL(back!.url()).pathname, "/signin", "the old session cookie is refused");
        await stale.close();
      },
    );
    await context.close();

    await t.step(
      "without JavaScript: sign up, log a day, see it in History, revoke a token",
      async () => {
        const noJs = await browser.newContext({ javaScriptEnabled: false, timezoneId: "UTC" });
        const p = await noJs.newPage();
        await signUp(p, base, "nojs");
        await p.getByRole("button", { name: "Add all starter columns" }).click();
        await p.getByRole("link", { name: "Today" }).click();
        await p.getByRole("group", { name: "Sleep" }).getByRole("textbox", { name: "Sleep" }).fill(
          "6.25",
        );
        await p.getByRole("group", { name: "Mood" }).getByRole("radio", { name: "4" }).check();
        await p.getByRole("button", { name: "Save", exact: true }).click();
        await p.waitForLoadState("load");
        assert.equal(
          await p.getByRole("group", { name: "Sleep" }).getByRole("textbox").inputValue(),
          "6.25",
        );
        await p.getByRole("link", { name: "History" }).click();
        await p.getByRole("navigation", { name: "Columns" }).getByRole("link", { name: "Sleep" })
          .click();
        const days = await p.getByRole("region", { name: "Days" }).innerText();
        assert.match(days, /6\.25/);
        assert.equal(await p.getByRole("img", { name: /^Sleep/ }).count(), 2);

        // A token without JavaScript: shown in a plain field; Revoke asks on a page of its own.
        await p.getByRole("link", { name: "Settings", exact: true }).click();
        const token = await createToken(p, "No-JS script");
        assert.equal((await callTool(base, token, "list_columns")).status, 200);
        await p.getByRole("list", { name: "Your API tokens" }).getByRole("button", {
          name: "Revoke",
        })
          .click();
        assert.match(await p.getByRole("main").innerText(), /No-JS script/);
        await p.getByRole("main").getByRole("button", { name: "Revoke" }).click();
        await p.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
        assert.match(await p.getByRole("main").innerText(), /You have no API tokens/);
        assert.equal((await callTool(base, token, "list_columns")).status, 401);
        await noJs.close();
      },
    );
  },
);
