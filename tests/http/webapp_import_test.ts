/**
 * Imports from the Settings page and from `/api/proxy` (issue #11 §6): Loop Habit Tracker and
 * Daylio fixtures (tests/fixtures/imports, made from their documented formats) → preview (mapping,
 * conflicts, per-row errors) → one commit → the same file again changes nothing. Oversize and
 * non-CSV uploads get a clear 4xx beside the file field.
 */

import assert from "node:assert/strict";
import { startServer } from "../_helpers.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { MAX_IMPORT_BYTES } from "../../lib/record/import_source.ts";
import {
  assertNamed,
  assertNoText,
  assertRow,
  assertSelector,
  assertText,
  type Browser,
  definition,
  hiddenValue,
  proxyAs,
  signedUpBrowser,
} from "./_web.ts";

/** The preview's Import button (a commit); absent while a row has an error. */
const COMMIT = 'form button[type="submit"][value="commit"]';

const fixture = (name: string) =>
  Deno.readFileSync(new URL(`../fixtures/imports/${name}`, import.meta.url));

async function upload(w: Browser, format: string, name: string, bytes = fixture(name)) {
  const csrf = hiddenValue((await w.get("/app/settings")).html, "csrf");
  return await w.postMultipart("/app/settings/import", { csrf, format }, {
    file: { name, bytes, type: name.endsWith(".zip") ? "application/zip" : "text/csv" },
  });
}

/** Sends the preview page's own confirm form back, with `extra` fields (mood places). */
async function confirm(w: Browser, previewHtml: string, step = "commit", extra = {}) {
  const fields = {
    csrf: hiddenValue(previewHtml, "csrf"),
    format: hiddenValue(previewHtml, "format"),
    fileName: hiddenValue(previewHtml, "fileName"),
    payload: hiddenValue(previewHtml, "payload"),
    step,
    ...extra,
  };
  return await w.postMultipart("/app/settings/import", fields);
}

async function snapshot(w: Browser, memberId: string) {
  const record = await proxyAs(w, { action: "exportRecord", format: "json" });
  const version = await w.target.kv.get(keys.recordVersion(memberId));
  return { columns: record.columns, entries: record.entries, version: version.versionstamp };
}

Deno.test("POST /app/settings/import", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "lou");
  const memberId = (await fetch(`${server.url}/api/auth`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${w.sessionToken}` },
    body: JSON.stringify({ action: "session" }),
  }).then((r) => r.json())).memberId as string;

  await t.step("Loop zip: preview maps habits to new columns, writes nothing", async () => {
    const before = await snapshot(w, memberId);
    const res = await upload(w, "loop", "loop_export.zip");
    assert.equal(res.status, 200, res.html.slice(0, 500));
    assertSelector(res.html, "h1", { count: 1, text: /^Import preview$/ });
    for (const habit of ["Meditate", "Run", "Gym"]) {
      assertRow(res.html, [habit, `${habit} ${habit.toLowerCase()}`]);
    }
    assertRow(res.html, ["Run", "Run run", "number (km)"]);
    assertText(res.html, "2 YES_AUTO cells");
    assert.match(
      definition(res.html, "Days with data") ?? "",
      /^6 \(10 November 2026 to 16 November 2026\)/,
    );
    assertNamed(res.html, COMMIT, "Import", 1);
    assert.deepEqual(await snapshot(w, memberId), before, "a preview writes nothing");
  });

  await t.step("a logged value shows as a conflict; commit writes every day at once", async () => {
    await proxyAs(w, {
      action: "createColumn",
      key: "meditate",
      label: "Meditate",
      type: "boolean",
    });
    await proxyAs(w, { action: "saveEntry", date: "2026-11-16", values: { meditate: false } });
    const preview = await upload(w, "loop", "loop_export.zip");
    assertRow(preview.html, ["Meditate", "Meditate meditate", "boolean", /^Existing/]);
    assertRow(preview.html, ["16 November 2026", "Meditate", "no", "yes"]);
    const done = await confirm(w, preview.html);
    assert.equal(done.status, 303, done.html.slice(0, 400));
    assert.equal(done.location, "/app/settings#import");
    const settings = (await w.get("/app/settings")).html;
    assertSelector(settings, '[role="status"]', {
      text: "Imported 6 days; new columns: Run, Gym.",
    });
    const { entries } = await proxyAs(w, {
      action: "getEntries",
      start: "2026-11-10",
      end: "2026-11-16",
    });
    assert.deepEqual(entries.map((e: { date: string; values: unknown }) => [e.date, e.values]), [
      ["2026-11-10", { meditate: true, run: 10, gym: false }],
      ["2026-11-11", { meditate: true, run: 7.5, gym: true }],
      ["2026-11-13", { meditate: true }],
      ["2026-11-14", { meditate: "skip", run: "skip", gym: false }],
      ["2026-11-15", { meditate: false, run: 0 }],
      ["2026-11-16", { meditate: true, run: 5.2, gym: true }],
    ]);
  });

  await t.step("the same file again changes nothing", async () => {
    const before = await snapshot(w, memberId);
    const preview = await upload(w, "loop", "loop_export.zip");
    assertNamed(preview.html, "dd", "0 (6 already logged exactly so)", 1);
    const done = await confirm(w, preview.html);
    assert.equal(done.status, 303);
    assertSelector((await w.get("/app/settings")).html, '[role="status"]', {
      text: "Nothing to import: all 6 days",
    });
    assert.deepEqual(await snapshot(w, memberId), before, "entries, columns and version identical");
  });

  await t.step("per-row errors with their lines; no Import button; REST refuses 422", async () => {
    const res = await upload(w, "loop", "loop_errors.csv");
    assert.equal(res.status, 200);
    assertText(res.html, "2 rows have errors");
    assertRow(res.html, ["3", "2026-11-15", /^"Meditate": "MAYBE"/]);
    assertRow(res.html, ["4", "2026-13-01"]);
    // A row after the member's today is left out with a notice, not an error (#25 defect 2).
    assertText(res.html, "1 row is dated after your today (2026-11-22) and left out: 2099-01-01.");
    assertSelector(res.html, COMMIT, { count: 0 });
    const rest = await fetch(`${server.url}/api/proxy`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${w.sessionToken}` },
      body: JSON.stringify({
        action: "importRecord",
        format: "loop",
        csv: new TextDecoder().decode(fixture("loop_errors.csv")),
      }),
    });
    const body = await rest.json();
    assert.equal(rest.status, 422);
    assert.equal(body.code, "import_rejected");
    assert.deepEqual(body.rejected.map((r: { line: number }) => r.line), [3, 4]);
  });

  await t.step("Daylio: an unknown mood is placed in the preview, then imported", async () => {
    const first = await upload(w, "daylio", "daylio_custom_moods.csv");
    assertText(first.html, 'Mood "ecstatic" has no place');
    assertSelector(first.html, COMMIT, { count: 0 });
    const placed = await confirm(w, first.html, "preview", { "mood:ecstatic": "5" });
    assert.equal(placed.status, 200);
    assertNoText(placed.html, "has no place");
    assertSelector(placed.html, 'select[name="mood:ecstatic"] option[value="5"][selected]', {
      count: 1,
    });
    const done = await confirm(w, placed.html, "commit", { "mood:ecstatic": "5" });
    assert.equal(done.status, 303, done.html.slice(0, 300));
    const { entries } = await proxyAs(w, {
      action: "getEntries",
      start: "2026-11-15",
      end: "2026-11-16",
    });
    assert.equal(entries[1].values.mood, 5);
    assert.equal(entries[1].values.sport, true);
    assert.equal(entries[0].values.mood, 4);
  });

  await t.step("Daylio export: moods, activities and notes; then idempotent", async () => {
    const preview = await upload(w, "daylio", "daylio_export.csv");
    assertRow(preview.html, ["movies / tv", "movies / tv movies_tv"]);
    // The day's mood as a row of the conflicts, or a count of conflicts.
    if (!/^\d+$/.test(definition(preview.html, "Conflicts") ?? "")) {
      assertRow(preview.html, ["16 November 2026", "mood", "5", "5"]);
    }
    assert.equal((await confirm(w, preview.html)).status, 303);
    const before = await snapshot(w, memberId);
    const again = await confirm(w, (await upload(w, "daylio", "daylio_export.csv")).html);
    assert.equal(again.status, 303);
    assert.deepEqual(await snapshot(w, memberId), before);
    const { entries } = await proxyAs(w, {
      action: "getEntries",
      start: "2026-11-14",
      end: "2026-11-14",
    });
    assert.equal(entries[0].note, "Rainy\nstayed in");
    assert.equal(entries[0].values.movies_tv, true);
  });

  await t.step("Loop: two habits named H show as two rows of the mapping (issue #19)", async () => {
    const res = await upload(w, "loop", "loop_repeated_names.zip");
    assert.equal(res.status, 200, res.html.slice(0, 500));
    assertRow(res.html, ["H", "H h", "boolean"]);
    assertRow(res.html, ["H (2)", "H (2) h_2", /^number \(h\)/]);
    assertText(res.html, '2 habits are named "H": they are imported as "H", "H (2)".');
  });

  await t.step("not a CSV, a zip for Daylio, oversize: clear 4xx beside the file", async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const notCsv = await upload(w, "routine-tracker", "photo.png", png);
    assert.equal(notCsv.status, 422);
    assertSelector(notCsv.html, "#f-file-error", {
      count: 1,
      text: /^This file is not a CSV or JSON file\./,
    });
    const zip = await upload(w, "daylio", "loop_export.zip");
    assert.equal(zip.status, 422);
    assertSelector(zip.html, "#f-file-error", {
      count: 1,
      text: /^A \.zip file is only accepted for Loop/,
    });
    const big = new TextEncoder().encode(
      "date,x\n" + "2026-11-01,1\n".repeat(MAX_IMPORT_BYTES / 8),
    );
    const tooBig = await upload(w, "routine-tracker", "big.csv", big);
    assert.equal(tooBig.status, 413);
    const tooLarge = { count: 1, text: /^The file is larger than 512 KB\./ };
    assertSelector(tooBig.html, "#f-file-error", tooLarge);
    const justOver = new Uint8Array(MAX_IMPORT_BYTES + 1).fill(0x31);
    const over = await upload(w, "routine-tracker", "over.csv", justOver);
    assert.equal(over.status, 413, "over the import limit, under the upload cap");
    assertSelector(over.html, "#f-file-error", tooLarge);
  });
});

Deno.test("POST /api/proxy importRecord", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "rex");

  await t.step("format loop with zipBase64 and dryRun: a preview, nothing written", async () => {
    const zip = fixture("loop_export.zip");
    const zipBase64 = btoa(Array.from(zip, (b) => String.fromCharCode(b)).join(""));
    const preview = await proxyAs(w, {
      action: "importRecord",
      format: "loop",
      zipBase64,
      dryRun: true,
    });
    assert.equal(preview.committed, false);
    assert.equal(preview.changed, 6);
    assert.deepEqual(preview.mapping.map((m: { create: boolean }) => m.create), [true, true, true]);
    assert.deepEqual((await proxyAs(w, { action: "listColumns" })).columns, []);
    const done = await proxyAs(w, { action: "importRecord", format: "loop", zipBase64 });
    assert.equal(done.committed, true);
    assert.equal(done.imported, 6);
    assert.equal(done.parts, 1);
    assert.deepEqual(done.createdColumns, ["meditate", "run", "gym"]);
    const again = await proxyAs(w, { action: "importRecord", format: "loop", zipBase64 });
    assert.equal(again.imported, 0);
    assert.equal(again.unchanged, 6);
  });

  await t.step("over 900 changed days: written in parts, resumable, then idempotent", async () => {
    await proxyAs(w, { action: "createColumn", key: "steps", label: "Steps", type: "integer" });
    const last = Date.UTC(2026, 10, 20);
    const rows = Array.from({ length: 1000 }, (_, i) => {
      const day = new Date(last - i * 86_400_000).toISOString().slice(0, 10);
      return `${day},${1000 + i}`;
    });
    const csv = (part: string[]) => `date,steps\n${part.join("\n")}\n`;
    // An import stopped after its first part leaves whole days behind; the same file again
    // writes only what is missing.
    const first = await proxyAs(w, { action: "importRecord", csv: csv(rows.slice(500)) });
    assert.equal(first.imported, 500);
    assert.equal(first.parts, 1);
    const preview = await proxyAs(w, { action: "importRecord", csv: csv(rows), dryRun: true });
    assert.equal(preview.changed, 500);
    const all = await proxyAs(w, { action: "importRecord", csv: csv(rows) });
    assert.equal(all.imported, 500);
    assert.equal(all.unchanged, 500);
    const big = rows.map((r) => r.replace(/,(\d+)$/, (_, n) => `,${Number(n) + 1}`));
    const two = await proxyAs(w, { action: "importRecord", csv: csv(big) });
    assert.equal(two.imported, 1000);
    assert.equal(two.parts, 2, "1000 changed days take two atomic commits");
    const again = await proxyAs(w, { action: "importRecord", csv: csv(big) });
    assert.equal(again.imported, 0);
    assert.equal(again.parts, 0);
  });

  await t.step("daylio with a moodScale", async () => {
    const csv = new TextDecoder().decode(fixture("daylio_custom_moods.csv"));
    const res = await proxyAs(w, {
      action: "importRecord",
      format: "daylio",
      csv,
      moodScale: { Ecstatic: 5 },
    });
    assert.equal(res.imported, 2);
  });
});

/** A failing `/api/proxy` action's status and envelope. */
async function proxyError(w: Browser, body: Record<string, unknown>) {
  const res = await w.request("/api/proxy", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${w.sessionToken}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const base64 = (bytes: Uint8Array) =>
  btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));

Deno.test("POST /api/proxy importRecord keys source columns by position (issue #19)", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "pos");

  await t.step("Loop: two habits named H become two columns, neither loses a value", async () => {
    const zipBase64 = base64(fixture("loop_repeated_names.zip"));
    const preview = await proxyAs(w, {
      action: "importRecord",
      format: "loop",
      zipBase64,
      dryRun: true,
    });
    assert.deepEqual(
      preview.mapping.map((
        m: { source: string; key: string; label: string; type: string },
      ) => [m.source, m.key, m.label, m.type]),
      [["H", "h", "H", "boolean"], ["Walk", "walk", "Walk", "boolean"], [
        "H (2)",
        "h_2",
        "H (2)",
        "number",
      ]],
    );
    assert.ok(
      preview.notices.some((n: string) => n.includes('"H"') && n.includes('"H (2)"')),
      preview.notices.join("\n"),
    );
    const done = await proxyAs(w, { action: "importRecord", format: "loop", zipBase64 });
    assert.deepEqual(done.createdColumns, ["h", "walk", "h_2"]);
    const { entries } = await proxyAs(w, {
      action: "getEntries",
      start: "2026-11-14",
      end: "2026-11-16",
    });
    assert.deepEqual(entries.map((e: { date: string; values: unknown }) => [e.date, e.values]), [
      ["2026-11-14", { h: true, h_2: 1 }],
      ["2026-11-15", { h: false, walk: true }],
      ["2026-11-16", { h: true, walk: false, h_2: 2.5 }],
    ]);
    const again = await proxyAs(w, { action: "importRecord", format: "loop", zipBase64 });
    assert.equal(again.imported, 0, "the same file again changes nothing");
  });

  await t.step("Daylio: a repeated header is refused, naming it", async () => {
    const csv = "full_date,date,weekday,time,mood,activities,note_title,note,mood\n" +
      '2026-11-10,10 November,Tuesday,9:00 pm,good,"sport",,,rad\n';
    const res = await proxyError(w, { action: "importRecord", format: "daylio", csv });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, "invalid_request");
    assert.match(res.body.error, /"mood" appears twice/);
  });

  await t.step("Daylio: an activity named mood is its own column beside the mood", async () => {
    const csv = "full_date,date,weekday,time,mood,activities,note_title,note\n" +
      '2026-11-09,9 November,Monday,9:00 pm,good,"mood | sport",,\n';
    const res = await proxyAs(w, { action: "importRecord", format: "daylio", csv, dryRun: true });
    assert.deepEqual(res.errors, []);
    const day = res.preview[0].values;
    const activity = res.mapping.find((m: { type: string; key: string }) =>
      m.type === "boolean" && m.key !== "sport"
    ).key;
    assert.deepEqual(
      res.mapping.map((m: { source: string }) =>
        m.source
      ),
      [
        "mood",
        "mood (2)",
        "sport",
      ],
    );
    assert.equal(day.mood, 4);
    assert.equal(day[activity], true);
  });

  await t.step("our CSV: a repeated header is refused, naming it", async () => {
    await proxyAs(w, { action: "createColumn", key: "stretch", label: "Stretch", type: "boolean" });
    const csv = "date,stretch,stretch\n2026-11-10,true,false\n";
    const res = await proxyError(w, { action: "importRecord", csv });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(res.body.error, /Header "stretch" appears twice/);
  });
});

Deno.test("POST /api/proxy importRecord reports impossible dates as row errors (issue #19)", async (t) => {
  await using server = await startServer();
  const w = await signedUpBrowser(server, "cal");

  await t.step("Daylio's year + date form: 31 February is a row error, never 3 March", async () => {
    const csv = "year,date,weekday,time,mood,activities,note\n" +
      '2025,31 February,Friday,9:00 pm,good,"sport",""\n' +
      '2025,0 March,Friday,9:00 pm,good,"sport",""\n' +
      '2024,29 February,Thursday,9:00 pm,meh,"sport",""\n';
    const res = await proxyAs(w, { action: "importRecord", format: "daylio", csv, dryRun: true });
    assert.deepEqual(
      res.errors.map((e: { line: number; date: string; reason: string }) => [e.line, e.date]),
      [[2, "2025 31 February"], [3, "2025 0 March"]],
    );
    assert.match(res.errors[0].reason, /31 February 2025 is not a real date/);
    assert.deepEqual(res.preview.map((d: { date: string }) => d.date), ["2024-02-29"]);
    const commit = await proxyError(w, { action: "importRecord", format: "daylio", csv });
    assert.equal(commit.status, 422);
    assert.equal(commit.body.code, "import_rejected");
  });

  await t.step("Loop, Daylio's full_date and our CSV: 30 February is a row error", async () => {
    const loop = await proxyAs(w, {
      action: "importRecord",
      format: "loop",
      csv: "Date,Walk,\n2025-02-30,YES_MANUAL,\n2025-02-28,NO,\n",
      dryRun: true,
    });
    assert.deepEqual(loop.errors.map((e: { line: number }) => e.line), [2]);
    const daylio = await proxyAs(w, {
      action: "importRecord",
      format: "daylio",
      csv: "full_date,date,weekday,time,mood,activities,note_title,note\n" +
        "2025-02-30,30 February,Sunday,9:00 pm,good,sport,,\n",
      dryRun: true,
    });
    assert.deepEqual(daylio.errors.map((e: { line: number }) => e.line), [2]);
    await proxyAs(w, { action: "createColumn", key: "walk", label: "Walk", type: "boolean" });
    const own = await proxyAs(w, {
      action: "importRecord",
      csv: "date,walk\n2025-02-30,true\n",
      dryRun: true,
    });
    assert.deepEqual(own.errors.map((e: { line: number }) => e.line), [2]);
  });
});

Deno.test("imports: CSV export → import into a fresh account → the same export, with formula-like notes (issue #19)", async () => {
  await using server = await startServer();
  const a = await signedUpBrowser(server, "ann");
  const b = await signedUpBrowser(server, "ben");
  for (const w of [a, b]) {
    await proxyAs(w, { action: "createColumn", key: "temp", label: "Temp", type: "number" });
    await proxyAs(w, { action: "createColumn", key: "walk", label: "Walk", type: "boolean" });
  }
  const notes = [
    "=1+1",
    "+x",
    "-y",
    "@z",
    "'=a",
    "'plain",
    "\tcmd",
    "''+b",
    "plain = fine",
    "=" + "x".repeat(1999),
  ];
  for (const [i, note] of notes.entries()) {
    const date = `2026-11-${String(10 + i).padStart(2, "0")}`;
    await proxyAs(a, {
      action: "saveEntry",
      date,
      values: { temp: -3 - i / 2, walk: i % 2 === 0 },
      note,
    });
  }
  const first = (await proxyAs(a, { action: "exportRecord", format: "csv" })).csv as string;
  // OWASP CSV injection: no cell may start with = + - @ tab or CR unless it is a number.
  const cells = first.trim().split("\n").slice(1).map((line) => line.split(",").at(-1)!);
  assert.deepEqual(cells.slice(0, 6), ["'=1+1", "'+x", "'-y", "'@z", "''=a", "'plain"]);
  assert.deepEqual(cells.filter((c) => /^[=+\-@\t\r]/.test(c)), [], "no cell a formula");
  assert.match(first, /^2026-11-10,-3,true,/m, "a negative number stays a number");
  const imported = await proxyAs(b, { action: "importRecord", csv: first });
  assert.equal(imported.imported, notes.length);
  const { entries } = await proxyAs(b, {
    action: "getEntries",
    start: "2026-11-10",
    end: "2026-11-30",
  });
  assert.deepEqual(entries.map((e: { note: string }) => e.note), notes);
  const second = (await proxyAs(b, { action: "exportRecord", format: "csv" })).csv as string;
  assert.equal(second, first);
});
