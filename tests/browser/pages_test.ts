/**
 * Every page in Chromium at 390×844 and 1280×800 (issue #11, "Standards"): zero axe-core
 * violations signed in and out, nothing scrolls sideways at 390 px (every docs page included), tap
 * targets of the app's navigation and forms at least 44 px, at most 30 kB of JavaScript (gzip) per
 * page, and a screenshot of each page at both widths (light; dark for a few) in
 * test-output/screenshots/ for review.
 */

import assert from "node:assert/strict";
import type { BrowserContext, ConsoleMessage, Page } from "playwright-core";
import {
  axeViolations,
  browserTest,
  collectScripts,
  gzipSize,
  JS_BUDGET_GZIP,
  SCREENSHOT_DIR,
  sidewaysOverflow,
  signUp,
  VIEWPORTS,
} from "./_browser.ts";

/** The BASE_URL the screenshots show (the README's pictures stay the same from run to run). */
const SCREENSHOT_BASE_URL = "http://localhost:8000";
const SIGNED_OUT = ["/", "/signin", "/signup", "/membership", "/docs/data-api", "/api"];
const SIGNED_IN = ["/app", "/app/history", "/app/columns", "/app/insights", "/app/settings"];
const DARK = ["/", "/signin", "/app", "/app/history", "/app/settings"];
/** WCAG 2.5.5 (AAA) size, which the issue asks of the app's navigation and form controls. */
const TAP_MIN = 44;
const TAP_TARGETS = [
  "header a",
  "header button",
  "nav[aria-label=App] a",
  "main form button",
  "main form select",
  "main form textarea",
  "main form input:not([type=hidden]):not([type=radio]):not([type=checkbox])",
].join(", ");
/** In the app every navigation link is a tap target too (day, column, range, settings sections). */
const APP_TAP_TARGETS = `${TAP_TARGETS}, main nav a`;

const DOC_SLUGS = [...Deno.readDirSync(new URL("../../content/docs/", import.meta.url))]
  .filter((e) => e.name.endsWith(".md"))
  .map((e) => e.name.slice(0, -3))
  .sort();

/**
 * Controls smaller than TAP_MIN in either direction (hidden and visually-hidden ones aside), and
 * how many were measured, so an empty list cannot come from a selector that matched nothing.
 */
function smallTargets(
  page: Page,
  selector = TAP_TARGETS,
): Promise<{ checked: number; small: string[] }> {
  return page.evaluate(({ selector, min }) => {
    const small: string[] = [];
    let checked = 0;
    for (const el of document.querySelectorAll<HTMLElement>(selector)) {
      const r = el.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1 || el.closest("[aria-hidden=true], .skip")) continue;
      checked++;
      if (r.width < min || r.height < min) {
        const name = (el.textContent ?? "").trim().slice(0, 30) || el.getAttribute("name") || "";
        small.push(`${el.tagName.toLowerCase()} "${name}" ${Math.round(r.width)}×${r.height}`);
      }
    }
    return { checked, small };
  }, { selector, min: TAP_MIN });
}

/** Opens `path`, collecting the bodies of the scripts it loads. */
async function open(page: Page, base: string, path: string): Promise<Uint8Array[]> {
  const scripts = collectScripts(page);
  const res = await page.goto(base + path, { waitUntil: "load" });
  assert.equal(res?.status(), 200, `${path} answers 200`);
  return await scripts.stop();
}

/** Two weeks for the screenshots and charts: sleep, steps and mood, one day skipped. */
const SEED_DAYS = Array.from({ length: 14 }, (_, i) => {
  const day = new Date(Date.UTC(2026, 10, 9 + i)).toISOString().slice(0, 10);
  return {
    path: i === 13 ? "/app" : `/app?day=${day}`,
    sleep: String([7.5, 6.75, 8, 7.25, 6.5, 8.25, 7][i % 7]),
    steps: String(6000 + ((i * 2731) % 7000)),
    mood: String([4, 3, 4, 5, 2, 4, 3][i % 7]),
    skip: i === 5,
  };
});

/** Makes the signed-in member: starter columns and two weeks logged, so charts have marks. */
async function seedMember(context: BrowserContext, base: string): Promise<void> {
  const page = await context.newPage();
  await signUp(page, base, "sam");
  await page.getByRole("button", { name: "Add all starter columns" }).click();
  for (const d of SEED_DAYS) {
    await page.goto(base + d.path);
    await page.getByRole("textbox", { name: "Steps" }).fill(d.steps);
    await page.getByRole("group", { name: "Mood" }).getByRole("radio", { name: d.mood }).check();
    if (d.skip) {
      await page.getByRole("group", { name: "Sleep" }).getByRole("button", { name: "Skip day" })
        .click();
    } else {
      await page.getByRole("textbox", { name: "Sleep" }).fill(d.sleep);
      await page.getByRole("button", { name: "Save", exact: true }).click();
    }
    await page.waitForLoadState("load");
  }
  await page.close();
}

/** Forms sent with bad input: the field that must carry the message, and what it says. */
const BAD_INPUT: {
  name: string;
  path: string;
  signedIn: boolean;
  act: (page: Page) => Promise<void>;
  field: string;
  /** The heading of the form the field is in, when the page has several such fields. */
  form?: string;
  message: RegExp;
}[] = [
  {
    name: "sign up, empty",
    path: "/signup",
    signedIn: false,
    act: (p) => p.getByRole("button", { name: "Create account" }).click(),
    field: "Username",
    message: /username/i,
  },
  {
    name: "sign in, wrong password",
    path: "/signin",
    signedIn: false,
    act: async (p) => {
      await p.getByLabel("Username").fill("sam");
      await p.getByLabel("Password").fill("not the password");
      await p.getByRole("button", { name: "Sign in" }).click();
    },
    field: "Password",
    message: /password is incorrect/i,
  },
  {
    name: "Today, steps not a number",
    path: "/app?day=2026-11-01",
    signedIn: true,
    act: async (p) => {
      await p.getByRole("textbox", { name: "Steps" }).fill("lots");
      await p.getByRole("button", { name: "Save", exact: true }).click();
    },
    field: "Steps",
    message: /number/i,
  },
  {
    name: "Columns, a column without a label",
    path: "/app/columns",
    signedIn: true,
    act: (p) => p.getByRole("button", { name: "Add column" }).click(),
    field: "Label",
    form: "Add a column",
    message: /label/i,
  },
  {
    name: "Settings, an unknown time zone",
    path: "/app/settings",
    signedIn: true,
    act: async (p) => {
      await p.getByLabel("Time zone", { exact: true }).fill("Mars/Olympus_Mons");
      await p.getByRole("button", { name: "Save profile" }).click();
    },
    field: "Time zone",
    message: /zone/i,
  },
];

function shotName(path: string, width: string, scheme: string): string {
  const name = path === "/" ? "landing" : path.slice(1).replaceAll("/", "-");
  return `${name}-${width}${scheme === "dark" ? "-dark" : ""}.png`;
}

interface Where {
  base: string;
  path: string;
  width: number;
  height: number;
  shot: string;
}

/**
 * The whole page in one picture: the viewport is stretched to the document's height first, so a
 * sticky bar (Today's Save) sits where a reader meets it, not pasted over the middle as
 * `fullPage` captures draw it.
 */
async function fullScreenshot(page: Page, w: Where): Promise<void> {
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: w.width, height: Math.max(height, w.height) });
  await page.screenshot({ path: new URL(w.shot, SCREENSHOT_DIR).pathname });
  await page.setViewportSize({ width: w.width, height: w.height });
}

/** Every check of one page; returns what failed, one line each. */
async function checkPage(page: Page, w: Where): Promise<string[]> {
  const failures: string[] = [];
  const errors: string[] = [];
  const onConsole = (m: ConsoleMessage) => {
    if (m.type() === "error") errors.push(m.text());
  };
  page.on("console", onConsole); // a CSP refusal or a script error shows here
  const js = await gzipSize(await open(page, w.base, w.path));
  page.off("console", onConsole);
  const fail = (what: string) => failures.push(`${w.path} at ${w.width} px: ${what}`);
  if (js > JS_BUDGET_GZIP) fail(`${js} B of JavaScript (gzip)`);
  if (w.path === "/app/settings" && js === 0) fail("the Settings island not counted");
  for (const e of errors) fail(`console error ${e}`);
  for (const v of await axeViolations(page)) fail(`axe ${v}`);
  if (w.width === 390) {
    const over = await sidewaysOverflow(page);
    if (over > 0) fail(`scrolls ${over} px sideways`);
    const targets = w.path.startsWith("/app") ? APP_TAP_TARGETS : TAP_TARGETS;
    const { checked, small } = await smallTargets(page, targets);
    if (small.length) fail(`tap targets under ${TAP_MIN} px: ${small.join("; ")}`);
    if (checked < 3) fail(`only ${checked} tap targets measured`);
  }
  await fullScreenshot(page, w);
  return failures;
}

browserTest("Every page at 390 and 1280 px: axe, no sideways scroll, tap targets, JS", async (
  { base, browser },
  t,
) => {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  const seed = await browser.newContext({ timezoneId: "UTC" });
  await seedMember(seed, base);
  const signedIn = await seed.storageState();
  await seed.close();

  for (const scheme of ["light", "dark"] as const) {
    for (const vp of VIEWPORTS) {
      await t.step(`${vp.width}×${vp.height} ${scheme}`, async () => {
        const failures: string[] = [];
        for (const state of ["out", "in"] as const) {
          const context = await browser.newContext({
            viewport: { width: vp.width, height: vp.height },
            colorScheme: scheme,
            timezoneId: "UTC",
            storageState: state === "in" ? signedIn : undefined,
          });
          const page = await context.newPage();
          const paths = (state === "out" ? SIGNED_OUT : SIGNED_IN)
            .filter((p) => scheme === "light" || DARK.includes(p));
          for (const path of paths) {
            const shot = shotName(path, vp.name, scheme);
            const where = { base, path, width: vp.width, height: vp.height, shot };
            failures.push(...await checkPage(page, where));
          }
          await context.close();
        }
        assert.deepEqual(failures, [], failures.join("\n"));
      });
    }
  }

  await t.step("History's scroll frames are tab stops only where they scroll", async () => {
    /** Per frame (calendar, table of days): "stop" when it has tabindex=0, and whether it scrolls. */
    const frames = async (width: number, javaScriptEnabled: boolean) => {
      const context = await browser.newContext({
        viewport: { width, height: 844 },
        timezoneId: "UTC",
        storageState: signedIn,
        javaScriptEnabled,
      });
      const page = await context.newPage();
      await open(page, base, "/app/history");
      const found = [];
      for (
        const frame of [
          page.getByRole("group", { name: "Calendar, scrolls sideways" }),
          page.getByRole("region", { name: "Days" }),
        ]
      ) {
        const stop = await frame.getAttribute("tabindex") === "0" ? "stop" : "no stop";
        const scrolls = await frame.evaluate((el) =>
          el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1
        );
        found.push(`${stop}, ${scrolls ? "scrolls" : "fits"}`);
      }
      await context.close();
      return found;
    };
    const phone = await frames(390, true);
    assert.equal(phone[0], "stop, scrolls", "a phone: the year calendar scrolls");
    assert.deepEqual(phone.filter((f) => f === "stop, fits" || f === "no stop, scrolls"), []);
    const desktop = await frames(1280, true);
    assert.equal(desktop[0], "no stop, fits", "a desktop: the calendar fits, no tab stop");
    assert.deepEqual(desktop.filter((f) => f === "stop, fits" || f === "no stop, scrolls"), []);
    const noJs = await frames(1280, false);
    assert.deepEqual(noJs.map((f) => f.split(",")[0]), ["stop", "stop"], "no JavaScript: all");
  });

  await t.step("Columns at 390 px: each short label stays one line beside its swatch", async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      storageState: signedIn,
    });
    const page = await context.newPage();
    await open(page, base, "/app/columns");
    const wrapped = await page.locator(".column-head h3").evaluateAll((hs) =>
      hs.filter((h) =>
        h.getBoundingClientRect().height > 1.5 * parseFloat(getComputedStyle(h).lineHeight)
      )
        .map((h) => h.textContent)
    );
    await context.close();
    assert.deepEqual(wrapped, []);
  });

  await t.step("bad input: the message sits beside the field, and axe stays clean", async () => {
    const failures: string[] = [];
    for (const vp of VIEWPORTS) {
      const context = await browser.newContext({
        viewport: { width: vp.width, height: vp.height },
        timezoneId: "UTC",
      });
      const page = await context.newPage();
      for (const state of BAD_INPUT) {
        if (state.signedIn) await context.addCookies(signedIn.cookies);
        else await context.clearCookies();
        await open(page, base, state.path);
        await state.act(page);
        await page.waitForLoadState("load");
        const scope = state.form
          ? page.locator("form").filter({ has: page.getByRole("heading", { name: state.form }) })
          : page;
        const field = scope.getByLabel(state.field, { exact: true });
        const invalid = await field.getAttribute("aria-invalid");
        const described = await field.evaluate((el) =>
          (el.getAttribute("aria-describedby") ?? "").split(" ")
            .map((id) => document.getElementById(id)?.textContent ?? "").join(" ")
        );
        const where = `${state.name} at ${vp.width} px`;
        if (invalid !== "true") failures.push(`${where}: ${state.field} not aria-invalid`);
        if (!state.message.test(described)) {
          failures.push(`${where}: "${described}" does not say ${state.message}`);
        }
        for (const v of await axeViolations(page)) failures.push(`${where}: axe ${v}`);
        if (vp.width === 390 && await sidewaysOverflow(page) > 0) {
          failures.push(`${where}: scrolls sideways`);
        }
      }
      await context.close();
    }
    assert.deepEqual(failures, [], failures.join("\n"));
  });

  await t.step(
    "the checks themselves see a violation, a wide element and a small button",
    async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      await open(page, base, "/signin");
      await page.evaluate(() => {
        // Styled through the CSSOM: the pages' CSP (style-src 'self') refuses style attributes.
        const main = document.querySelector("main")!;
        main.insertAdjacentHTML(
          "beforeend",
          '<img src="/static/icons/icon.svg"><div id="wide">wide</div>' +
            '<form><button id="tiny">x</button></form>',
        );
        document.getElementById("wide")!.style.width = "900px";
        document.getElementById("tiny")!.style.all = "unset";
      });
      const axe = await axeViolations(page);
      assert.ok(axe.some((v) => v.startsWith("image-alt ")), axe.join("\n"));
      assert.ok((await sidewaysOverflow(page)) > 400);
      assert.deepEqual(
        (await smallTargets(page)).small.filter((s) => s.startsWith('button "x"')).length,
        1,
      );
      await context.close();
    },
  );

  await t.step("every docs page fits 390 px without sideways scroll", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const wide: string[] = [];
    for (const slug of DOC_SLUGS) {
      await open(page, base, `/docs/${slug}`);
      const over = await sidewaysOverflow(page);
      if (over > 0) wide.push(`/docs/${slug}: ${over} px`);
    }
    await context.close();
    assert.ok(DOC_SLUGS.length >= 10, DOC_SLUGS.join(", "));
    assert.deepEqual(wide, []);
  });

  await t.step("the pictures print the fixed BASE_URL, not the server's random port", async () => {
    const page = await browser.newPage();
    await open(page, base, "/");
    assert.match(await page.locator("main").innerText(), /http:\/\/localhost:8000\/api\/mcp/);
    await page.close();
  });
}, { baseUrl: SCREENSHOT_BASE_URL, islands: true });
