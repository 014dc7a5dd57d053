/**
 * Every page issue #25 changed, looked at together (its last "Done when"): a member with four months
 * of eight columns in three groups, two pauses and three API tokens, at 390 and 1280 px, in the
 * light and the dark theme (the member's preference, set against the device's scheme so the
 * preference is what decides; the signed-out pages follow the device). On each page: its main
 * heading by role and name, axe with 0 violations, nothing scrolling sideways, and a screenshot in
 * test-output/screenshots/<page>-<width>-<theme>.png to be looked at.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { BrowserContext, Locator, Page } from "playwright-core";
import {
  assertAxeClean,
  type BrowserRun,
  browserTest,
  makeToken,
  proxy,
  saveScreenshot,
  sidewaysOverflow,
  signUp,
  VIEWPORTS,
} from "./_browser.ts";

/** The server's manual clock stands at 2026-11-22 12:00 UTC; the members' zone is UTC. */
const TODAY = Date.UTC(2026, 10, 22);
const DAY_MS = 86_400_000;
/** Four months of logs, up to yesterday. */
const LOGGED_DAYS = 120;
/** Away from 11 to 15 November: a pause of every column, nothing logged. */
const AWAY = { start: "2026-11-11", end: "2026-11-15" };
/** A locator that is not there fails in 10 s, not the default 30. */
const WAIT_MS = 10_000;
const CSV_FORMAT = "Routine Tracker CSV";
/** `--bg` of each scheme (static/styles.css), as getComputedStyle writes it. */
const BACKGROUND = { light: "rgb(246, 244, 239)", dark: "rgb(18, 19, 22)" } as const;

type Theme = "light" | "dark";

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The eight columns, in three groups and one without. */
const COLUMNS = [
  {
    key: "meditate",
    label: "Meditate",
    type: "boolean",
    group: "Morning",
    goal: { op: "true", value: null, per: "day", times: null },
    missing_policy: "breaks",
  },
  { key: "stretch", label: "Stretch", type: "boolean", group: "Morning" },
  { key: "sleep_hours", label: "Sleep", type: "number", unit: "h", group: "Health" },
  {
    key: "steps",
    label: "Steps",
    type: "integer",
    group: "Health",
    direction: "higher_better",
    goal: { op: "at_least", value: 8000, per: "day", times: null },
  },
  { key: "weight", label: "Weight", type: "number", unit: "kg", group: "Health" },
  {
    key: "read",
    label: "Read",
    type: "boolean",
    group: "Evening",
    goal: { op: "true", value: null, per: "week", times: 3 },
  },
  { key: "mood", label: "Mood", type: "scale", scale_min: 1, scale_max: 5, group: "Evening" },
  { key: "water", label: "Water", type: "integer", unit: "glasses" },
];

/** A CSV in our export's shape: `date`, column keys, `note`. */
function csvOf(header: string[], rows: (string | number | boolean)[][]): string {
  return [header, ...rows].map((r) => r.join(",")).join("\n") + "\n";
}

/** The four months, deterministic (a small LCG), with nothing on the days away. */
function fourMonths(): string {
  let seed = 25;
  const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const rows: (string | number | boolean)[][] = [];
  for (let n = LOGGED_DAYS; n >= 1; n--) {
    const date = isoDay(TODAY - n * DAY_MS);
    if (date >= AWAY.start && date <= AWAY.end) continue;
    const note = n % 17 === 0
      ? "Slept badly after a late dinner with friends; long walk in the afternoon helped."
      : n % 5 === 0
      ? "Rest day"
      : "";
    rows.push([
      date,
      rand() < 0.85,
      rand() < 0.5 ? true : rand() < 0.5 ? false : "",
      (5.5 + rand() * 3).toFixed(1),
      Math.round(3000 + rand() * 9000),
      n % 3 === 0 ? (71 + rand() * 2).toFixed(1) : "",
      rand() < 0.45,
      1 + Math.floor(rand() * 5),
      Math.round(4 + rand() * 5),
      note,
    ]);
  }
  return csvOf(["date", ...COLUMNS.map((c) => c.key), "note"], rows);
}

/**
 * The realistic member: signed up in a UTC browser (so Today shows the UTC note), the columns,
 * four months imported (Water then archived), a pause of every column while away and one of Read covering today, three
 * tokens (one with a long name), Sunday as the first day of the week.
 */
async function seedMember(run: BrowserRun, context: BrowserContext, name: string) {
  const { base, server } = run;
  server.clock.advance(61_000); // sign-ups share the `auth` quota of 10 a minute per address
  const page = await context.newPage();
  await signUp(page, base, name);
  for (const c of COLUMNS) await proxy(context, base, { action: "createColumn", ...c });
  const report = await proxy(context, base, { action: "importRecord", csv: fourMonths() });
  assert.equal(report.errorCount, 0, JSON.stringify(report.errors));
  await proxy(context, base, { action: "createPause", ...AWAY });
  await proxy(context, base, {
    action: "createPause",
    start: "2026-11-20",
    end: "2026-11-29",
    columns: ["read"],
  });
  for (
    const token of ["Laptop script", "Home Assistant", "Nightly backup to the NAS in the hall"]
  ) {
    await makeToken(context, base, token);
  }
  await proxy(context, base, { action: "archiveColumn", key: "water" });
  await proxy(context, base, { action: "updateProfile", weekStartsOn: 0 });
  return page;
}

/** A CSV that differs from what the member logged, brings a new column and a row after today. */
const CONFLICTS_CSV = csvOf(["date", "steps", "mood", "journal", "note"], [
  ["2026-11-19", 12000, 5, true, "From the phone"],
  ["2026-11-20", 200, 1, false, ""],
  ["2026-11-21", 9100, 3, true, ""],
  ["2026-11-24", 5000, 2, true, "Exported in Berlin after midnight"],
]);

/** Our CSV for an account with no columns yet: every column is created, the 23rd left out. */
const FRESH_CSV = csvOf(["date", "workout", "sleep_hours", "mood", "note"], [
  ["2026-11-20", true, 7.5, 4, "on 2026-11-20"],
  ["2026-11-21", false, 6, 2, ""],
  ["2026-11-23", true, 8, 5, ""],
]);

/** Settings → Import with `csv` as our CSV: lands on the preview. */
async function previewImport(page: Page, base: string, csv: string): Promise<void> {
  await page.goto(`${base}/app/settings#import`);
  const section = page.getByRole("region", { name: "Import" });
  await section.getByLabel("Format").selectOption({ label: CSV_FORMAT });
  await section.getByLabel("File").setInputFiles({
    name: "routine-tracker-2026-11-22.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(csv),
  });
  await section.getByRole("button", { name: "Import", exact: true }).click();
  await page.waitForLoadState("load");
}

/** One page to look at: how to get there, and its main heading. */
interface Screen {
  name: string;
  heading: string;
  open: (page: Page, base: string) => Promise<void>;
  /** What else the page must show, by role and name. */
  expect?: (page: Page) => Promise<void>;
}

/** Waits for an island on the page to hydrate, so the shot shows what a member sees. */
async function hydrated(page: Page): Promise<void> {
  if (await page.locator("[data-island]").count()) {
    await page.locator('[data-hydrated="true"]').first().waitFor();
  }
}

async function visible(page: Page, what: ReturnType<Page["locator"]>, label: string) {
  assert.ok(await what.first().isVisible(), `${label} is visible on ${page.url()}`);
}

/** How many lines the element's text takes (its text boxes, grouped by their top edge). */
function textLines(locator: Locator, part?: string): Promise<number> {
  return locator.evaluate((el, part) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    if (part) {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      let node: Node | null;
      while ((node = walker.nextNode()) && !(node as Text).data.includes(part));
      if (!node) throw new Error(`no text "${part}" in ${el.outerHTML}`);
      const at = (node as Text).data.indexOf(part);
      range.setStart(node, at);
      range.setEnd(node, at + part.length);
    }
    const tops = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top);
    tops.sort((a, b) => a - b);
    return tops.filter((top, i) => i === 0 || top - tops[i - 1] > 4).length;
  }, part);
}

/** Each of the page's Save-bar links keeps one line (they wrapped at 390 px). */
async function saveBarOnOneLine(page: Page) {
  const links = page.locator(".save-bar a");
  assert.equal(await links.count(), 2);
  for (const link of await links.all()) {
    assert.equal(await textLines(link), 1, `"${await link.innerText()}" takes one line`);
  }
}

/** The starter tiles sit below "Add all starter columns", not against it, and "Added" off the edge. */
async function startersSpaced(page: Page) {
  const all = await page.getByRole("button", { name: "Add all starter columns" }).boundingBox();
  const tile = page.locator(".template-list li").first();
  const first = await tile.boundingBox();
  assert.ok(
    all && first && first.y - (all.y + all.height) >= 8,
    `gap ${first!.y - all!.y - all!.height}`,
  );
  const gap = await tile.evaluate((li) => {
    const range = document.createRange();
    range.selectNodeContents(li.querySelector(":scope > .muted")!);
    return li.getBoundingClientRect().right - range.getBoundingClientRect().right;
  });
  assert.ok(gap >= 8, `"Added" ends ${gap} px from its tile's edge`);
}

/** The "Settings sections" navigation names every section the page has (E-mail was missing). */
async function everySectionListed(page: Page) {
  const ids = await page.locator("section.settings-section[id]").evaluateAll((all) =>
    all.map((s) => s.id).filter((id) => id !== "membership") // listed as its own page
  );
  const nav = page.getByRole("navigation", { name: "Settings sections" });
  const hrefs = await nav.getByRole("link").evaluateAll((all) =>
    all.map((a) => a.getAttribute("href"))
  );
  assert.deepEqual(ids.filter((id) => !hrefs.includes(`#${id}`)), [], "sections not listed");
}

/** A token never used says so in words ("never used"), not "last used Never". */
async function tokensNeverUsed(page: Page) {
  const text = await page.getByRole("list", { name: "Your API tokens" }).innerText();
  assert.doesNotMatch(text, /last used Never/);
  assert.equal(text.match(/never used/g)?.length, 3, text);
}

/**
 * Every choice of every drop-down on the page fits its box: a closed select shows its chosen
 * option on one line and cuts the rest ("Routine Tracker CSV (our own ex" at 390 px). Measured
 * with the select's own font; 28 px stand for its padding and arrow.
 */
async function choicesFit(page: Page) {
  const cut = await page.locator("select").evaluateAll((selects) => {
    const context = document.createElement("canvas").getContext("2d")!;
    return (selects as HTMLSelectElement[]).flatMap((select) => {
      context.font = getComputedStyle(select).font;
      const room = select.clientWidth - 28;
      return [...select.options]
        .filter((o) => context.measureText(o.text).width > room)
        .map((o) => `${select.name}: "${o.text}" in ${room} px`);
    });
  });
  assert.deepEqual(cut, [], "choices wider than their drop-down");
}

/** The preview's short tables fit the screen; the file's name is not broken over lines. */
async function previewFits(page: Page, tables: string[]) {
  for (const name of tables) {
    const region = page.getByRole("region", { name });
    const [scroll, client] = await region.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    assert.ok(scroll <= client, `"${name}" is ${scroll} px wide in ${client} px`);
  }
  const file = page.locator(".import-summary dd").first();
  assert.equal(await textLines(file, "routine-tracker-2026-11-22.csv"), 1, "the file's name");
}

/** The signed-in member's pages. */
const MEMBER_SCREENS: Screen[] = [
  {
    name: "today",
    heading: "Today",
    open: (page, base) => page.goto(`${base}/app`).then(() => {}),
    expect: async (page) => {
      await visible(page, page.getByRole("region", { name: "Last 7 days" }), "the habit list");
      await visible(page, page.getByRole("region", { name: "Morning" }), "the Morning group");
      await visible(page, page.getByText("Your time zone is"), "the UTC note");
      await saveBarOnOneLine(page);
    },
  },
  {
    name: "columns",
    heading: "Columns",
    open: async (page, base) => {
      await page.goto(`${base}/app/columns`);
      await page.getByText("Edit Meditate").click(); // its group in the open form
    },
    expect: async (page) => {
      assert.equal(await page.getByLabel("Group").first().inputValue(), "Morning");
      await visible(page, page.getByRole("button", { name: "Delete Water" }), "Delete (archived)");
      await startersSpaced(page);
    },
  },
  {
    name: "column-delete",
    heading: "Delete Water?",
    open: async (page, base) => {
      await page.goto(`${base}/app/columns`);
      await page.getByRole("button", { name: "Delete Water" }).click();
      await page.waitForLoadState("load");
    },
    expect: (page) => visible(page, page.getByRole("button", { name: "Delete Water" }), "confirm"),
  },
  {
    name: "pauses",
    heading: "Pauses",
    open: (page, base) => page.goto(`${base}/app/pauses`).then(() => {}),
  },
  {
    name: "settings",
    heading: "Settings",
    open: (page, base) => page.goto(`${base}/app/settings`).then(() => {}),
    expect: async (page) => {
      for (const region of ["Preferences", "E-mail", "Connected apps"]) {
        await visible(page, page.getByRole("region", { name: region }), region);
      }
      await visible(page, page.getByRole("list", { name: "Your API tokens" }), "the tokens");
      await everySectionListed(page);
      await tokensNeverUsed(page);
      await choicesFit(page);
    },
  },
  {
    name: "reminders",
    heading: "Reminders",
    open: (page, base) => page.goto(`${base}/app/settings/reminders`).then(() => {}),
  },
  {
    name: "import-conflicts",
    heading: "Import preview",
    open: (page, base) => previewImport(page, base, CONFLICTS_CSV),
    expect: async (page) => {
      await visible(page, page.getByRole("radio", { name: "Keep what I logged" }), "Keep");
      await visible(page, page.getByRole("radio", { name: "Take the file's" }), "Take");
      await visible(page, page.getByText(/dated after your today/), "the later-rows notice");
      await previewFits(page, ["How the columns map", "Conflicts with what you logged"]);
    },
  },
];

/** The account with no columns: our CSV creates them. */
const EMPTY_ACCOUNT_SCREENS: Screen[] = [{
  name: "import-empty",
  heading: "Import preview",
  open: (page, base) => previewImport(page, base, FRESH_CSV),
  expect: async (page) => {
    const mapping = page.getByRole("region", { name: "How the columns map" });
    assert.equal(await mapping.getByText("Create", { exact: true }).count(), 3, "create columns");
    await visible(page, page.getByText(/dated after your today/), "the later-rows notice");
    await previewFits(page, ["How the columns map"]);
  },
}];

/** The signed-out pages (they follow the device's scheme). */
const PUBLIC_SCREENS: Screen[] = [
  { name: "help", heading: "Help", open: (page, base) => page.goto(`${base}/help`).then(() => {}) },
  {
    name: "signup",
    heading: "Create your account",
    open: (page, base) => page.goto(`${base}/signup`).then(() => {}),
    expect: (page) => visible(page, page.getByLabel("Time zone"), "the Time zone field"),
  },
  {
    name: "signin",
    heading: "Sign in",
    open: (page, base) => page.goto(`${base}/signin`).then(() => {}),
    expect: (page) => visible(page, page.getByText(/Forgot/), "the forgotten-password line"),
  },
];

/** Every colour token the stylesheet defines (`--name: var(--if-light, …) var(--if-dark, …)`). */
async function colourTokens(base: string): Promise<string[]> {
  const css = await (await fetch(`${base}/static/styles.css`)).text();
  return [...css.matchAll(/^\s*(--[\w-]+):\s*var\(--if-light,/gm)].map((m) => m[1]);
}

/** Each token as Chromium resolves it on the page (a colour, or a shadow for `--shadow`). */
function resolvedTokens(page: Page, tokens: string[]): Promise<string[]> {
  return page.evaluate((tokens) => {
    const probe = document.body.appendChild(document.createElement("div"));
    const values = tokens.map((t) => {
      const prop = t === "--shadow" ? "box-shadow" : "color";
      probe.style.cssText = `${prop}: var(${t})`;
      return `${t} ${getComputedStyle(probe).getPropertyValue(prop)}`;
    });
    probe.remove();
    return values;
  }, tokens);
}

/** The tokens under the device's `scheme` and the member's `theme` (absent: the device's). */
async function palette(page: Page, scheme: Theme, theme: Theme | null, tokens: string[]) {
  await page.emulateMedia({ colorScheme: scheme });
  await page.evaluate((theme) => {
    if (theme) document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
  }, theme);
  return await resolvedTokens(page, tokens);
}

/** Opens `screen` and checks it as the brief says; the screenshot comes before the assertions. */
async function look(page: Page, base: string, screen: Screen, width: string, theme: Theme) {
  await screen.open(page, base);
  await hydrated(page);
  const where = `${screen.name} at ${width} px, ${theme}`;
  await saveScreenshot(page, `${screen.name}-${width}-${theme}.png`);
  const h1 = page.getByRole("heading", { level: 1, name: screen.heading, exact: true });
  assert.equal(await h1.count(), 1, `one main heading "${screen.heading}" on ${where}`);
  assert.equal(
    await page.evaluate(() => getComputedStyle(document.body).backgroundColor),
    BACKGROUND[theme],
    `${where} is in the ${theme} scheme`,
  );
  await screen.expect?.(page);
  assert.ok(await sidewaysOverflow(page) <= 0, `${where} scrolls sideways`);
  await assertAxeClean(page, where);
}

/** Each screen at each width in `theme`, by the member's preference against the device's. */
async function lookAll(
  page: Page,
  base: string,
  screens: Screen[],
  theme: Theme,
  t: Deno.TestContext,
) {
  for (const v of VIEWPORTS) {
    await page.setViewportSize({ width: v.width, height: v.height });
    for (const screen of screens) {
      await t.step(`${screen.name} at ${v.name} px`, () => look(page, base, screen, v.name, theme));
    }
  }
}

browserTest(
  "screens: every page #25 changed, at 390 and 1280 px in light and dark, axe-clean, none wider than the screen",
  async (run, t) => {
    const { browser, base } = run;
    const context = await browser.newContext({ timezoneId: "UTC" });
    context.setDefaultTimeout(WAIT_MS);
    const page = await seedMember(run, context, "screens");
    const fresh = await browser.newContext({ timezoneId: "UTC" });
    fresh.setDefaultTimeout(WAIT_MS);
    run.server.clock.advance(61_000);
    const freshPage = await fresh.newPage();
    await signUp(freshPage, base, "newcomer");
    const visitor = await (await browser.newContext({ timezoneId: "UTC" })).newPage();
    await t.step(
      "the dark palette is one: the device's dark and the member's are the same",
      async () => {
        const tokens = await colourTokens(base);
        assert.ok(tokens.length >= 20, `colour tokens: ${tokens.join(" ")}`);
        await visitor.goto(`${base}/signin`);
        const dark = await palette(visitor, "dark", null, tokens);
        const light = await palette(visitor, "light", null, tokens);
        assert.deepEqual(await palette(visitor, "light", "dark", tokens), dark);
        assert.deepEqual(await palette(visitor, "dark", "light", tokens), light);
        assert.equal(dark.filter((d, i) => d === light[i]).length, 0, "every token changes");
      },
    );
    for (const theme of ["light", "dark"] as const) {
      const device = theme === "dark" ? "light" : "dark";
      await t.step(`${theme} theme`, async (t) => {
        for (
          const [ctx, p, screens] of [
            [context, page, MEMBER_SCREENS],
            [fresh, freshPage, EMPTY_ACCOUNT_SCREENS],
          ] as const
        ) {
          await proxy(ctx, base, { action: "updateProfile", theme });
          await p.emulateMedia({ colorScheme: device });
          await lookAll(p, base, screens, theme, t);
        }
        await visitor.emulateMedia({ colorScheme: theme });
        await lookAll(visitor, base, PUBLIC_SCREENS, theme, t);
      });
    }
  },
);
