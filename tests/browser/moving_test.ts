/**
 * Moving in and out in Chromium (#25 "Moving in and out", defects 1, 2 and 10): a member ahead of
 * UTC (Kiritimati, where the test clock's 2026-11-22 12:00 UTC is already the 23rd) exports CSV and
 * JSON from Settings; a FRESH account imports the CSV with JavaScript off on a phone (its columns
 * created, the row dated after its today left out with a notice), another imports the JSON on a
 * desktop; each account's export then matches the first one's. The preview names columns by label
 * and offers "Keep what I logged" or "Take the file's". By role and accessible name, axe-clean at
 * 390 and 1280, with screenshots of the preview and Settings at both widths.
 */

import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { assertAxeClean, browserTest, SCREENSHOT_DIR, signUp, VIEWPORTS } from "./_browser.ts";

const AHEAD = "Pacific/Kiritimati";
const CSV = "Routine Tracker CSV";
const JSON_FORMAT = "Routine Tracker JSON";

/** Calls `/api/proxy` as the page's member (its session as a bearer, as scripts do). */
async function proxy(context: BrowserContext, base: string, body: Record<string, unknown>) {
  const session = (await context.cookies(base)).find((c) => c.name === "rt_session")?.value;
  const res = await context.request.post(`${base}/api/proxy`, {
    headers: { Authorization: `Bearer ${session}` },
    data: body,
  });
  assert.equal(res.status(), 200, await res.text());
  return await res.json();
}

/** Four columns of four types, logged on three days (the 23rd is "today" only ahead of UTC). */
async function seed(context: BrowserContext, base: string) {
  const columns = [
    { key: "workout", label: "Workout", type: "boolean" },
    { key: "steps", label: "Steps", type: "integer", direction: "higher_better" },
    { key: "sleep_hours", label: "Sleep", type: "number", unit: "h" },
    { key: "mood", label: "Mood", type: "scale", scale_min: 1, scale_max: 5 },
  ];
  for (const c of columns) await proxy(context, base, { action: "createColumn", ...c });
  const days = [
    ["2026-11-20", { workout: true, steps: 8000, sleep_hours: 7.5, mood: 4 }],
    ["2026-11-21", { workout: "skip", steps: 120, sleep_hours: 6, mood: 2 }],
    ["2026-11-23", { workout: false, steps: 3000 }],
  ] as const;
  for (const [date, values] of days) {
    await proxy(context, base, { action: "saveEntry", date, values, note: `on ${date}` });
  }
}

/** Settings → Export CSV or JSON: the suggested file name and the text. */
async function exportFile(page: Page, button: "Export CSV" | "Export JSON") {
  await page.getByRole("link", { name: "Settings", exact: true }).click();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: button }).click(),
  ]);
  // Saved under its suggested name, so the preview shows the name a member's file has.
  const path = `${await Deno.makeTempDir()}/${download.suggestedFilename()}`;
  await download.saveAs(path);
  return { name: download.suggestedFilename(), text: await Deno.readTextFile(path), path };
}

/** Settings → Import with the file: lands on the preview. */
async function preview(page: Page, format: string, path: string): Promise<void> {
  await page.getByRole("link", { name: "Settings", exact: true }).click();
  const section = page.getByRole("region", { name: "Import" });
  await section.getByLabel("Format").selectOption({ label: format });
  await section.getByLabel("File").setInputFiles(path);
  await section.getByRole("button", { name: "Import", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "Import preview" }).waitFor();
}

/** Clicks the preview's Import; returns Settings' text afterwards (the flash). */
async function commit(page: Page): Promise<string> {
  await page.getByRole("button", { name: "Import", exact: true }).last().click();
  await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
  return await page.getByRole("main").innerText();
}

/** Axe and a screenshot of the page at both widths. */
async function atBothWidths(page: Page, shot: string): Promise<void> {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  for (const v of VIEWPORTS) {
    await page.setViewportSize({ width: v.width, height: v.height });
    await assertAxeClean(page, `${shot} at ${v.name}`);
    const path = new URL(`${shot}-${v.name}.png`, SCREENSHOT_DIR).pathname;
    await page.screenshot({ path, fullPage: true });
  }
}

browserTest("moving: own CSV and JSON exports import into fresh accounts in Chromium", async (
  { base, browser },
  t,
) => {
  const ahead = {
    timezoneId: AHEAD,
    acceptDownloads: true,
    viewport: { width: 1280, height: 800 },
  };
  const source = await browser.newContext(ahead);
  const page = await source.newPage();
  await signUp(page, base, "mover");
  await seed(source, base);

  let csv = { name: "", text: "", path: "" };
  let json = { name: "", text: "", path: "" };
  await t.step("the downloads are named by the member's day (the 23rd), not UTC's", async () => {
    csv = await exportFile(page, "Export CSV");
    json = await exportFile(page, "Export JSON");
    assert.equal(csv.name, "routine-tracker-2026-11-23.csv");
    assert.equal(json.name, "routine-tracker-2026-11-23.json");
  });

  await t.step("the CSV into a fresh account, phone, no JavaScript", async () => {
    const phone = await browser.newContext({
      javaScriptEnabled: false,
      timezoneId: "UTC",
      acceptDownloads: true,
      viewport: { width: 390, height: 844 },
    });
    const p = await phone.newPage();
    await signUp(p, base, "fresh_csv");
    await preview(p, CSV, csv.path);
    const mapping = await p.getByRole("region", { name: "How the columns map" }).innerText();
    for (const label of ["Workout", "Steps", "Sleep hours", "Mood"]) {
      assert.match(mapping, new RegExp(`${label}.*\\bCreate\\b`), `${label} is created`);
    }
    const main = await p.getByRole("main").innerText();
    assert.match(main, /1 row is dated after your today \(2026-11-22\) and left out: 2026-11-23/);
    assert.match(main, /Rows with errors\s+0/);
    await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
    await p.screenshot({
      path: new URL("import-preview-csv-nojs-390.png", SCREENSHOT_DIR).pathname,
      fullPage: true,
    });
    const flash = await commit(p);
    assert.match(flash, /Imported 2 days; new columns: Workout, Steps, Sleep hours, Mood\./);
    const copy = await exportFile(p, "Export CSV");
    const expected = csv.text.split("\n").filter((l) => !l.startsWith("2026-11-23,")).join("\n");
    assert.equal(copy.text, expected, "the fresh account exports the same CSV, less the 23rd");
    await phone.close();
  });

  await t.step("the JSON into a fresh account, desktop: every definition and day", async () => {
    const desk = await browser.newContext(ahead);
    const p = await desk.newPage();
    await signUp(p, base, "fresh_json");
    await preview(p, JSON_FORMAT, json.path);
    const mapping = await p.getByRole("region", { name: "How the columns map" }).innerText();
    assert.match(mapping, /Mood mood\s+scale\s+Create/);
    assert.match(mapping, /Sleep sleep_hours\s+number \(h\)\s+Create/);
    await atBothWidths(p, "import-preview-json");
    assert.match(await commit(p), /Imported 3 days; new columns: Workout, Steps, Sleep, Mood\./);
    const copy = JSON.parse((await exportFile(p, "Export JSON")).text);
    const original = JSON.parse(json.text);
    assert.deepEqual(copy.columns, original.columns);
    assert.deepEqual(copy.entries, original.entries);
    await desk.close();
  });

  await t.step("a conflict: named by label; Keep what I logged keeps it", async () => {
    await proxy(source, base, { action: "saveEntry", date: "2026-11-21", values: { steps: 42 } });
    await preview(page, CSV, csv.path);
    const conflicts = page.getByRole("region", { name: "Conflicts with what you logged" });
    assert.match(await conflicts.innerText(), /21 November 2026\s+Steps\s+42\s+120/);
    const choice = page.getByRole("group", { name: /When the file and what you logged differ/ });
    assert.equal(await choice.getByRole("radio", { name: "Take the file's" }).isChecked(), true);
    await atBothWidths(page, "import-preview-conflicts");
    await choice.getByRole("radio", { name: "Keep what I logged" }).check();
    assert.match(await commit(page), /Nothing to import|Imported/);
    const after = await proxy(source, base, {
      action: "getEntries",
      start: "2026-11-21",
      end: "2026-11-21",
    });
    assert.equal(after.entries[0].values.steps, 42, "what I logged stays");
    await page.getByRole("heading", { level: 2, name: "Import" }).scrollIntoViewIfNeeded();
    await atBothWidths(page, "settings-import");
  });
  await source.close();
});
