/**
 * Imports through the Settings page in Chromium (issue #11 §6 and "How it is checked"): a Loop
 * Habit Tracker backup and a Daylio export (tests/fixtures/imports, made from their documented
 * formats) each go upload → preview (mapping, conflicts, per-row errors) → Import, and the same
 * file a second time changes nothing. Driven by role and accessible name.
 */

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { assertAxeClean, browserTest, signUp } from "./_browser.ts";

const FIXTURES = new URL("../fixtures/imports/", import.meta.url);
const LOOP = "Loop Habit Tracker";
const DAYLIO = "Daylio CSV";

/** Settings → Import with `file`: lands on the preview. */
async function preview(page: Page, format: string, file: string): Promise<void> {
  await page.getByRole("link", { name: "Settings", exact: true }).click();
  const section = page.getByRole("region", { name: "Import" });
  await section.getByLabel("Format").selectOption({ label: format });
  await section.getByLabel("File").setInputFiles(new URL(file, FIXTURES).pathname);
  await section.getByRole("button", { name: "Import", exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "Import preview" }).waitFor();
}

/** The figure beside a summary term on the preview ("Days it changes" → "4 (0 already …)"). */
async function summary(page: Page, term: string): Promise<string> {
  const text = await page.getByRole("main").innerText();
  const m = text.match(new RegExp(`${term}\\s*\\n\\s*([^\\n]+)`));
  assert.ok(m, `the preview states "${term}":\n${text}`);
  return m[1].trim();
}

/** Settings → Export JSON: the whole record as the download holds it. */
async function exportJson(page: Page): Promise<string> {
  await page.getByRole("link", { name: "Settings", exact: true }).click();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export JSON" }).click(),
  ]);
  return await Deno.readTextFile(await download.path());
}

/** Clicks the preview's Import; returns the flash Settings shows afterwards. */
async function commit(page: Page): Promise<string> {
  await page.getByRole("button", { name: "Import", exact: true }).first().click();
  await page.getByRole("heading", { level: 1, name: "Settings" }).waitFor();
  return await page.getByRole("main").innerText();
}

browserTest("Settings imports in Chromium: Loop and Daylio, preview to idempotent commit", async (
  { base, browser },
  t,
) => {
  const context = await browser.newContext({ timezoneId: "UTC", acceptDownloads: true });
  const page = await context.newPage();
  await signUp(page, base, "importer");
  await page.getByRole("button", { name: "Add all starter columns" }).click();
  // Mood 2 on 16 November: the Daylio file says otherwise for that day, a conflict to show.
  await page.goto(`${base}/app?day=2026-11-16`);
  await page.getByRole("group", { name: "Mood" }).getByRole("radio", { name: "2" }).check();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.waitForLoadState("load");

  await t.step("a Loop file with bad rows: each error by line, and no Import", async () => {
    await preview(page, LOOP, "loop_errors.csv");
    const errors = await page.getByRole("region", { name: "Rows with errors" }).innerText();
    assert.match(errors, /MAYBE/);
    assert.match(errors, /2026-13-01|month|date/i);
    assert.equal(await summary(page, "Rows with errors"), "2");
    assert.equal(await page.getByRole("button", { name: "Import", exact: true }).count(), 0);
    await assertAxeClean(page, "a Loop preview with errors");
  });

  let loopDays = 0;
  await t.step("the Loop export: preview maps its habits, Import writes them", async () => {
    await preview(page, LOOP, "loop_export.zip");
    const mapping = await page.getByRole("region", { name: "How the columns map" }).innerText();
    for (const habit of ["Meditate", "Run", "Gym"]) assert.match(mapping, new RegExp(habit));
    loopDays = Number((await summary(page, "Days it changes")).split(" ")[0]);
    assert.ok(loopDays > 0, `${loopDays} days change`);
    const after = await commit(page);
    assert.match(after, new RegExp(`Imported ${loopDays} days; new columns: .*Meditate`));
    await page.getByRole("link", { name: "History" }).click();
    const picker = page.getByRole("navigation", { name: "Columns" });
    await picker.getByRole("link", { name: "Meditate" }).click();
    assert.match(await page.getByRole("region", { name: "Days" }).innerText(), /16 November/);
  });

  await t.step("the same Loop export again changes nothing", async () => {
    const before = await exportJson(page);
    assert.match(before, /meditate/);
    await preview(page, LOOP, "loop_export.zip");
    assert.match(await summary(page, "Days it changes"), /^0 \(/);
    assert.equal(await summary(page, "New columns"), "0");
    assert.match(await commit(page), /Nothing to import: all \d+ days are already logged/);
    assert.equal(await exportJson(page), before, "the exported record is byte for byte the same");
  });

  await t.step("a Daylio export: an unknown mood is an error until it has a place", async () => {
    await preview(page, DAYLIO, "daylio_custom_moods.csv");
    assert.notEqual(await summary(page, "Rows with errors"), "0");
    assert.equal(await page.getByRole("button", { name: "Import", exact: true }).count(), 0);
    await page.getByLabel(/“ecstatic”/).selectOption("5");
    await page.getByRole("button", { name: "Update preview" }).click();
    await page.getByRole("heading", { level: 1, name: "Import preview" }).waitFor();
    assert.equal(await summary(page, "Rows with errors"), "0");
    assert.match(await summary(page, "Conflicts"), /^[1-9]/, "mood 2 on Nov 16 conflicts");
    const conflicts = await page.getByRole("region", { name: "Conflicts with what you logged" })
      .innerText();
    assert.match(conflicts, /16 November 2026/);
    await assertAxeClean(page, "a Daylio preview with mood mapping and conflicts");
    assert.match(await commit(page), /Imported \d+ days/);
  });

  await t.step("the same Daylio file again changes nothing", async () => {
    await preview(page, DAYLIO, "daylio_custom_moods.csv");
    await page.getByLabel(/“ecstatic”/).selectOption("5");
    await page.getByRole("button", { name: "Update preview" }).click();
    await page.getByRole("heading", { level: 1, name: "Import preview" }).waitFor();
    assert.match(await summary(page, "Days it changes"), /^0 \(/);
    assert.equal(await summary(page, "Conflicts"), "0");
    assert.match(await commit(page), /Nothing to import/);
    await page.goto(`${base}/app?day=2026-11-16`);
    const five = page.getByRole("group", { name: "Mood" }).getByRole("radio", { name: "5" });
    assert.equal(await five.isChecked(), true, "the file's mood replaced the logged 2");
  });
  await context.close();
});
