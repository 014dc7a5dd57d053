/**
 * Shared set-up of the browser tests: Debian's headless Chromium driven by playwright-core against
 * the real app on a loopback port, one server and one browser per test file.
 *
 * Chromium missing: locally the browser tests are skipped with a message; under CI (`CI=true`,
 * `.ci/run`) they run anyway and fail, so a CI machine without a browser cannot pass by skipping
 * what the checks depend on (issue #11, "How it is checked").
 */

import assert from "node:assert/strict";
import axe from "axe-core";
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Page,
  type Response as PwResponse,
} from "playwright-core";
import { buildIslands, islandsBuilt } from "../../scripts/build_islands.ts";
import { startServer, type TestServer } from "../_helpers.ts";

/** Where Debian's package puts the browser (`apt-get install chromium`); RT_CHROMIUM overrides. */
export const CHROMIUM = Deno.env.get("RT_CHROMIUM") ?? "/usr/bin/chromium";
/** The password every browser-test member uses. */
export const PASSWORD = "a long passphrase";
/** Where the screenshot test writes (gitignored; named in the README). */
export const SCREENSHOT_DIR = new URL("../../test-output/screenshots/", import.meta.url);
/** The budget: at most 30 kB of JavaScript (gzip) on any page. */
export const JS_BUDGET_GZIP = 30 * 1024;
/** The phone and desktop viewports every page is checked at. */
export const VIEWPORTS = [
  { name: "390", width: 390, height: 844 },
  { name: "1280", width: 1280, height: 800 },
] as const;

const inCi = Deno.env.get("CI") === "true";
const hasChromium = (() => {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
})();

/** `ignore` for every browser test: only when Chromium is absent AND we are not under CI. */
export const skipBrowserTests = !hasChromium && !inCi;
if (skipBrowserTests) {
  console.warn(
    `SKIPPED browser tests: ${CHROMIUM} not found (apt-get install -y chromium; .ci/run does this).`,
  );
}

/** Launches headless Chromium; under CI a missing browser is an error, not a skip. */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  if (!hasChromium) {
    throw new Error(
      `CI=true and ${CHROMIUM} is missing: the browser tests must run under CI ` +
        `(apt-get install -y chromium).`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      ...extraArgs,
    ],
  });
}

/** What a browser test body receives. */
export interface BrowserRun {
  server: TestServer;
  base: string;
  browser: Browser;
}

/** Options of `browserTest`. */
export interface BrowserTestOptions {
  /** Bundle `islands/` afresh first (an island's own tests); otherwise only missing bundles are built. */
  islands?: boolean;
  /**
   * Serve as if at this fixed `BASE_URL` (e.g. `http://localhost:8000`), so the URLs the pages
   * print (built from BASE_URL) do not carry the random port and screenshots stay stable.
   * Chromium's host resolver maps its host:port to the real loopback port; `base` is this URL.
   */
  baseUrl?: string;
}

/** Chromium's `--host-resolver-rules` sending `baseUrl`'s host:port to the server's real port. */
function hostMapping(baseUrl: string, serverUrl: string): string[] {
  const want = new URL(baseUrl);
  const real = new URL(serverUrl);
  return [`--host-resolver-rules=MAP ${want.host} ${real.host}`];
}

/**
 * One `Deno.test` with one real server (fresh in-memory KV, manual clock at 2026-11-22 12:00 UTC)
 * and one Chromium, both closed afterwards. Playwright keeps timers and sockets of its own, hence
 * the sanitizers are off.
 */
export function browserTest(
  name: string,
  fn: (run: BrowserRun, t: Deno.TestContext) => Promise<void>,
  options: BrowserTestOptions = {},
): void {
  Deno.test({
    name,
    ignore: skipBrowserTests,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      // Pages mount island bundles: without them Settings takes its no-JS path even with
      // JavaScript on, and a test would pass or fail by whether another file built them first.
      if (options.islands || !(await islandsBuilt())) await buildIslands();
      const fixed = options.baseUrl;
      await using server = await startServer(fixed ? { config: { baseUrl: fixed } } : {});
      const browser = await launchBrowser(fixed ? hostMapping(fixed, server.url) : []);
      try {
        await fn({ server, base: fixed ?? server.url, browser }, t);
      } finally {
        await browser.close();
      }
    },
  });
}

/** Signs a new member up through `/signup` by accessible names; the page lands on Today. */
export async function signUp(page: Page, base: string, username: string): Promise<void> {
  await page.goto(`${base}/signup`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(`${base}/app`);
}

/** Signs in through `/signin`; returns the page's URL afterwards (Today on success). */
export async function signIn(page: Page, base: string, username: string): Promise<string> {
  await page.goto(`${base}/signin`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForLoadState("load");
  return page.url();
}

/** POSTs `body` to `path` as the context's member (its session as a bearer, what scripts do). */
async function postAsMember(
  context: BrowserContext,
  base: string,
  path: string,
  body: Record<string, unknown>,
  status = 200,
) {
  const session = (await context.cookies()).find((c) => c.name === "rt_session")?.value;
  assert.ok(session, "signed in");
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${session}` },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, status, JSON.stringify(json));
  return json;
}

/** `/api/proxy` as the page's member (the session as a bearer, what scripts do). */
export function proxy(context: BrowserContext, base: string, body: Record<string, unknown>) {
  return postAsMember(context, base, "/api/proxy", body);
}

/** Mints an API token named `name` for the context's member through `POST /api/tokens`. */
export async function makeToken(context: BrowserContext, base: string, name: string) {
  const made = await postAsMember(context, base, "/api/tokens", {
    action: "create",
    name,
    scopes: ["read"],
  }, 201);
  return made as { id: string; name: string; token: string };
}

/** A full-page screenshot into test-output/screenshots/ (gitignored), named `name`. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: new URL(name, SCREENSHOT_DIR).pathname, fullPage: true });
}

/** The rule sets checked: WCAG 2.0–2.2 A and AA plus axe's best practices. */
const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs axe-core in the page and returns one line per violation (id, impact, help, targets), empty
 * when there are none. The source is evaluated through the DevTools protocol, which the page's
 * CSP (`script-src 'self'`) does not govern, so the page runs under its real policy.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => "axe" in globalThis);
  if (!loaded) await page.evaluate(axe.source);
  const violations = await page.evaluate(async (tags) => {
    // deno-lint-ignore no-explicit-any
    const result = await (globalThis as any).axe.run(document, {
      runOnly: { type: "tag", values: tags },
    });
    return result.violations as AxeViolation[];
  }, AXE_TAGS);
  return violations.map((v) => {
    const targets = v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ");
    const why = v.nodes[0]?.failureSummary?.split("\n").slice(1, 2).join("").trim() ?? "";
    return `${v.id} (${v.impact}, ${v.nodes.length}×): ${v.help} — ${targets} — ${why}`;
  });
}

/** How far the page scrolls sideways (0 when it fits the viewport). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const el = document.scrollingElement ?? document.documentElement;
    return el.scrollWidth - globalThis.innerWidth;
  });
}

/** Fails with every axe violation of the page as it stands (`where` names the state). */
export async function assertAxeClean(page: Page, where: string): Promise<void> {
  const violations = await axeViolations(page);
  if (violations.length) {
    throw new Error(`axe-core on ${where} (${page.url()}):\n${violations.join("\n")}`);
  }
}

/** Collects the bodies of the scripts `page` loads until `stop()`. */
export function collectScripts(page: Page): { stop(): Promise<Uint8Array[]> } {
  const bodies: Promise<Uint8Array>[] = [];
  const onResponse = (r: PwResponse) => {
    if (r.request().resourceType() === "script") {
      bodies.push(r.body().then((b) => new Uint8Array(b)));
    }
  };
  page.on("response", onResponse);
  return {
    stop() {
      page.off("response", onResponse);
      return Promise.all(bodies);
    },
  };
}

/** Gzip size of the scripts, summed: what the JavaScript budget counts. */
export async function gzipSize(bodies: Uint8Array[]): Promise<number> {
  let total = 0;
  for (const body of bodies) {
    const gz = new Blob([body as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
    total += (await new Response(gz).arrayBuffer()).byteLength;
  }
  return total;
}
