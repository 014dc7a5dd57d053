/**
 * Moving in and out through Settings (#25 "Moving in and out", defects 1, 2 and 10): a member's own
 * CSV and JSON exports import into a FRESH account (its columns created: inferred from the CSV,
 * as defined by the JSON), rows after the importing member's today are left out with a notice
 * while the rest imports, the preview offers "keep what I logged" or "take the file's" and names
 * columns by label, and the download is named by the member's day.
 */

import assert from "node:assert/strict";
import { startServer } from "../_helpers.ts";
import { MAX_IMPORT_BYTES } from "../../lib/record/import_source.ts";
import {
  assertRow,
  assertSelector,
  assertText,
  type Browser,
  definition,
  hiddenValue,
  proxyAs,
  signedUpBrowser,
} from "./_web.ts";

const COMMIT = 'form button[type="submit"][value="commit"]';

/** The test clock is 2026-11-22 12:00 UTC: in Kiritimati (UTC+14) it is already the 23rd. */
const AHEAD = "Pacific/Kiritimati";

async function upload(w: Browser, format: string, name: string, text: string) {
  const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
  return await w.postMultipart("/app/settings/import", { csrf, format }, {
    file: { name, bytes: new TextEncoder().encode(text) },
  });
}

async function confirm(w: Browser, previewHtml: string, extra: Record<string, string> = {}) {
  return await w.postMultipart("/app/settings/import", {
    csrf: hiddenValue(previewHtml, "csrf"),
    format: hiddenValue(previewHtml, "format"),
    fileName: hiddenValue(previewHtml, "fileName"),
    payload: hiddenValue(previewHtml, "payload"),
    step: "commit",
    ...extra,
  });
}

/** Settings → Export: the file's name (Content-Disposition) and its text. */
async function download(w: Browser, format: "csv" | "json") {
  const res = await w.get(`/app/settings/export?format=${format}`);
  assert.equal(res.status, 200);
  const name = /filename="([^"]+)"/.exec(res.res.headers.get("content-disposition") ?? "")?.[1];
  return { name, text: res.html };
}

/** A member ahead of UTC with four columns of four types, logged on three days. */
async function seedMember(w: Browser) {
  await proxyAs(w, { action: "updateProfile", timezone: AHEAD });
  const columns = [
    {
      key: "workout",
      label: "Workout",
      type: "boolean",
      goal: { op: "true", value: null, per: "week", times: 3 },
      group: "Morning",
    },
    { key: "steps", label: "Steps", type: "integer", direction: "higher_better" },
    { key: "sleep_hours", label: "Sleep", type: "number", unit: "h", daily_agg: "mean" },
    { key: "mood", label: "Mood", type: "scale", scale_min: 1, scale_max: 5 },
  ];
  for (const c of columns) await proxyAs(w, { action: "createColumn", ...c });
  const days = [
    ["2026-11-20", { workout: true, steps: 8000, sleep_hours: 7.5, mood: 4 }, "a ’good’ day"],
    ["2026-11-21", { workout: "skip", steps: 120, sleep_hours: 6, mood: 2 }, "=SUM(A1)"],
    ["2026-11-23", { workout: false, steps: 3000 }, null],
  ] as const;
  for (const [date, values, note] of days) {
    await proxyAs(w, { action: "saveEntry", date, values, ...(note ? { note } : {}) });
  }
  await proxyAs(w, { action: "createPause", start: "2026-11-10", end: "2026-11-12" });
  await proxyAs(w, {
    action: "createPause",
    start: "2026-11-15",
    end: "2026-11-15",
    columns: ["steps"],
  });
}

/** A JSON export's pauses without their ids (each instance names its own). */
const pausesOf = (exported: { pauses?: { id: string }[] }) =>
  (exported.pauses ?? []).map(({ id: _, ...rest }) => rest);

/** Drops the data row of `date` from our CSV export's text. */
const withoutDay = (csv: string, date: string) =>
  csv.split("\n").filter((line) => !line.startsWith(`${date},`)).join("\n");

Deno.test("moving in: own CSV and JSON exports import into a fresh account", async (t) => {
  await using app = await startServer();
  const source = await signedUpBrowser(app, "mover");
  await seedMember(source);
  const csv = await download(source, "csv");
  const json = await download(source, "json");

  await t.step("the export is named by the member's day, not the server's UTC date", () => {
    assert.equal(csv.name, "routine-tracker-2026-11-23.csv");
    assert.equal(json.name, "routine-tracker-2026-11-23.json");
  });

  await t.step("our CSV into a fresh account: columns created, a later row left out", async () => {
    const fresh = await signedUpBrowser(app, "fresh_csv"); // UTC: its today is the 22nd
    const preview = await upload(fresh, "routine-tracker", csv.name!, csv.text);
    assert.equal(preview.status, 200, preview.html.slice(0, 600));
    assertRow(preview.html, ["workout", "Workout workout", "boolean", "Create"]);
    assertRow(preview.html, ["steps", "Steps steps", "integer", "Create"]);
    assertRow(preview.html, ["sleep_hours", "Sleep hours sleep_hours", "number", "Create"]);
    assertRow(preview.html, ["mood", "Mood mood", "integer", "Create"]);
    assertText(
      preview.html,
      "1 row is dated after your today (2026-11-22) and left out: 2026-11-23.",
    );
    assert.equal(definition(preview.html, "Rows with errors"), "0");
    assertSelector(preview.html, COMMIT, { count: 1 });
    const done = await confirm(fresh, preview.html);
    assert.equal(done.status, 303, done.html.slice(0, 400));
    const flash = (await fresh.get("/app/settings")).html;
    assertText(flash, "Imported 2 days; new columns: Workout, Steps, Sleep hours, Mood.");
    const copy = await download(fresh, "csv");
    assert.equal(copy.text, withoutDay(csv.text, "2026-11-23"), "the same CSV, less the 23rd");
  });

  await t.step("our JSON into a fresh account: every definition, every day", async () => {
    const fresh = await signedUpBrowser(app, "fresh_json");
    await proxyAs(fresh, { action: "updateProfile", timezone: AHEAD });
    const preview = await upload(fresh, "routine-tracker-json", json.name!, json.text);
    assert.equal(preview.status, 200, preview.html.slice(0, 600));
    assertRow(preview.html, ["mood", "Mood mood", "scale", "Create"]);
    assertRow(preview.html, ["sleep_hours", "Sleep sleep_hours", "number (h)", "Create"]);
    const done = await confirm(fresh, preview.html);
    assert.equal(done.status, 303, done.html.slice(0, 400));
    const before = JSON.parse(json.text);
    const after = JSON.parse((await download(fresh, "json")).text);
    assert.deepEqual(after.columns, before.columns, "every definition, its group too");
    assert.deepEqual(after.entries, before.entries);
    assert.equal(pausesOf(before).length, 2);
    assert.deepEqual(pausesOf(after), pausesOf(before), "the pauses came along");
    const again = await proxyAs(fresh, {
      action: "importRecord",
      format: "routine-tracker-json",
      json: json.text,
    });
    assert.ok(
      again.notices.includes("0 of the file's 2 pauses added (the others you had already)."),
    );
    const twice = JSON.parse((await download(fresh, "json")).text);
    assert.deepEqual(pausesOf(twice), pausesOf(before), "a second import adds no pause twice");
  });

  await t.step("a JSON export chosen as CSV is read as JSON", async () => {
    const fresh = await signedUpBrowser(app, "fresh_guess");
    const preview = await upload(fresh, "routine-tracker", json.name!, json.text);
    assert.equal(preview.status, 200, preview.html.slice(0, 600));
    assertText(preview.html, "Routine Tracker JSON");
  });

  await t.step("conflicts: named by label; keep what I logged, or take the file's", async () => {
    const member = await signedUpBrowser(app, "chooser");
    await proxyAs(member, { action: "updateProfile", timezone: AHEAD });
    await proxyAs(member, {
      action: "createColumn",
      key: "steps",
      label: "Steps",
      type: "integer",
    });
    await proxyAs(member, { action: "saveEntry", date: "2026-11-20", values: { steps: 42 } });
    const preview = await upload(member, "routine-tracker", "mine.csv", csv.text);
    assertRow(preview.html, ["20 November 2026", "Steps", "42", "8000"]);
    assertSelector(preview.html, 'input[type="radio"][name="onConflict"]', { count: 2 });
    assertSelector(preview.html, 'input[name="onConflict"][value="replace"][checked]', {
      count: 1,
    });
    assertSelector(preview.html, "legend", { text: /^When the file and what you logged differ/ });
    const kept = await confirm(member, preview.html, { onConflict: "keep" });
    assert.equal(kept.status, 303, kept.html.slice(0, 400));
    const day = async () =>
      (await proxyAs(member, { action: "getEntries", start: "2026-11-20", end: "2026-11-20" }))
        .entries[0].values;
    assert.equal((await day()).steps, 42, "what I logged stays");
    assert.equal((await day()).mood, 4, "the file fills what was empty");
    const again = await upload(member, "routine-tracker", "mine.csv", csv.text);
    const taken = await confirm(member, again.html, { onConflict: "replace" });
    assert.equal(taken.status, 303);
    assert.equal((await day()).steps, 8000, "the file's value replaces it");
  });

  await t.step("a JSON that is not our export: a clear 422 beside the file", async () => {
    const member = await signedUpBrowser(app, "badjson");
    const broken = await upload(member, "routine-tracker-json", "x.json", "{not json");
    assert.equal(broken.status, 422);
    assertSelector(broken.html, "#f-file-error", { text: /^The file is not JSON/ });
    const bad = JSON.parse(json.text);
    bad.columns[3].scale_min = 9;
    const scale = await upload(member, "routine-tracker-json", "x.json", JSON.stringify(bad));
    assert.equal(scale.status, 422);
    assertSelector(scale.html, "#f-file-error", { text: /Column "mood" of the file: .*scale/ });
  });
});

/** Three years (1,095 days up to 2026-11-22) of 13 columns as our CSV: the walk. */
function threeYearsCsv(): string {
  const keys = Array.from({ length: 13 }, (_, i) => `habit_nr_${String(i).padStart(2, "0")}`);
  const lines = [["date", ...keys, "note"].join(",")];
  const last = Date.UTC(2026, 10, 22);
  for (let d = 1094; d >= 0; d--) {
    const date = new Date(last - d * 86_400_000).toISOString().slice(0, 10);
    const cells = keys.map((_, i) =>
      i % 3 === 0 ? String(d % 2 === 0) : String((d * 7 + i) % 9000 / 4)
    );
    lines.push([date, ...cells, d % 5 === 0 ? "a short note" : ""].join(","));
  }
  return lines.join("\n") + "\n";
}

Deno.test("moving in: a three-year JSON export of 13 columns fits the import's size", async () => {
  await using app = await startServer();
  const source = await signedUpBrowser(app, "longtime");
  const seeded = await proxyAs(source, {
    action: "importRecord",
    format: "routine-tracker",
    csv: threeYearsCsv(),
  });
  assert.equal(seeded.imported, 1095);
  const json = await download(source, "json");
  const bytes = new TextEncoder().encode(json.text).byteLength;
  assert.ok(
    bytes <= MAX_IMPORT_BYTES,
    `the JSON export is ${bytes} bytes, over ${MAX_IMPORT_BYTES}`,
  );
  const fresh = await signedUpBrowser(app, "newcomer");
  const preview = await upload(fresh, "routine-tracker-json", json.name!, json.text);
  assert.equal(preview.status, 200, preview.html.slice(0, 600));
  assert.equal(definition(preview.html, "New columns"), "13");
  assert.equal(await confirm(fresh, preview.html).then((r) => r.status), 303);
  const copy = JSON.parse((await download(fresh, "json")).text);
  assert.deepEqual(copy.entries, JSON.parse(json.text).entries);
});

Deno.test("POST /api/proxy importRecord", async (t) => {
  await using app = await startServer();
  const source = await signedUpBrowser(app, "apisource");
  await seedMember(source);
  const { text } = await download(source, "json");

  await t.step("routine-tracker-json with onConflict keep, from a script", async () => {
    const target = await signedUpBrowser(app, "apitarget");
    await proxyAs(target, { action: "updateProfile", timezone: AHEAD });
    await proxyAs(target, {
      action: "createColumn",
      key: "steps",
      label: "Steps",
      type: "integer",
    });
    await proxyAs(target, { action: "saveEntry", date: "2026-11-21", values: { steps: 5 } });
    const result = await proxyAs(target, {
      action: "importRecord",
      format: "routine-tracker-json",
      json: text,
      onConflict: "keep",
    });
    assert.equal(result.committed, true);
    assert.equal(result.onConflict, "keep");
    assert.equal(result.conflictCount, 1);
    assert.deepEqual(result.createdColumns, ["workout", "sleep_hours", "mood"]);
    const { entries } = await proxyAs(target, {
      action: "getEntries",
      start: "2026-11-21",
      end: "2026-11-21",
    });
    assert.equal(entries[0].values.steps, 5);
  });
});
