/**
 * The one test browser of the web app's HTTP tests (issues #11, #23): a cookie jar over either
 * `app.request` (`makeApp`) or a real server (`startServer`), GET, urlencoded and multipart form
 * posts with our Origin, no redirects followed; and page assertions on a parsed DOM
 * (`assertSelector`, linkedom) rather than regexes over the markup.
 */

import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import type { TestApp, TestServer } from "../_helpers.ts";

/** The origin of `testConfig()` (BASE_URL http://localhost:8000). */
export const OWN_ORIGIN = "http://localhost:8000";

/** What the browser talks to: the app in-process, or a server on a real port. */
export type BrowserTarget = TestApp | TestServer;

/** What a page request answers. */
export interface PageReply {
  status: number;
  html: string;
  location: string | null;
  res: Response;
}

/** A minimal browser: keeps cookies, sends them, never follows redirects. */
export class Browser {
  cookies = new Map<string, string>();
  /** The origin the target's config serves (what a same-origin form post sends as `Origin`). */
  readonly origin: string;
  constructor(readonly target: BrowserTarget) {
    this.origin = "url" in target ? target.url : OWN_ORIGIN;
  }

  #absorb(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** The `Cookie` header the browser would send. */
  get cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  /** A request to the target as is: no cookies added, none kept, redirects not followed. */
  request(path: string, init: RequestInit = {}): Promise<Response> {
    const t = this.target;
    if ("url" in t) return fetch(t.url + path, { ...init, redirect: "manual" });
    return t.request(path, init);
  }

  async #send(path: string, init: RequestInit = {}): Promise<PageReply> {
    const cookie: Record<string, string> = this.cookies.size ? { Cookie: this.cookie } : {};
    const res = await this.request(path, { ...init, headers: { ...cookie, ...init.headers } });
    this.#absorb(res);
    const html = await res.text();
    return { status: res.status, html, location: res.headers.get("location"), res };
  }

  /** GET a page. */
  get(path: string): Promise<PageReply> {
    return this.#send(path);
  }

  /** POST a form (urlencoded) with our Origin unless `headers` says otherwise (CSRF tests). */
  post(
    path: string,
    fields: Record<string, string> | [string, string][],
    headers: Record<string, string> = { Origin: this.origin },
  ): Promise<PageReply> {
    return this.#send(path, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** POST a multipart form (files as `{name, bytes}`) with our Origin. */
  postMultipart(
    path: string,
    fields: Record<string, string>,
    files: Record<string, { name: string; bytes: Uint8Array; type?: string }> = {},
  ): Promise<PageReply> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    for (const [k, f] of Object.entries(files)) {
      form.append(k, new File([f.bytes.slice()], f.name, { type: f.type ?? "text/csv" }));
    }
    return this.#send(path, { method: "POST", headers: { Origin: this.origin }, body: form });
  }

  /** The session token the browser holds, if any. */
  get session(): string | undefined {
    return this.cookies.get("rt_session");
  }

  /** The session token the browser holds; fails the test when it holds none. */
  get sessionToken(): string {
    const token = this.session;
    assert.ok(token, "signed in");
    return token;
  }
}

/** Signs a new member up through the page and returns the signed-in browser. */
export async function signedUpBrowser(
  target: BrowserTarget,
  username = "alice",
): Promise<Browser> {
  const b = new Browser(target);
  await b.get("/signup");
  const res = await b.post("/signup", { username, password: "a long passphrase" });
  assert.equal(res.status, 303, res.html);
  assert.ok(b.session, "a session cookie was set");
  return b;
}

/** The value of the hidden input `name` in a page. */
export function hiddenValue(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  assert.ok(m, `the page has a ${name} field`);
  return m[1];
}

/** The `csrf` hidden field's value in a page. */
export function csrfOf(html: string): string {
  return hiddenValue(html, "csrf");
}

/** The number of elements matching a tag (cheap structural checks). */
export function count(html: string, re: RegExp): number {
  const flags = re.flags.includes("g") ? re.flags : re.flags + "g";
  return [...html.matchAll(new RegExp(re.source, flags))].length;
}

/** The label text of the control with the given id. */
export function labelFor(html: string, id: string): string | null {
  const m = new RegExp(`<label[^>]*for="${id}"[^>]*>([\\s\\S]*?)</label>`).exec(html);
  return m ? m[1].replace(/<[^>]+>/g, "").trim() : null;
}

/** Calls a `/api/proxy` action with the browser's session as a bearer (what scripts do); asserts 200. */
export async function proxyAs(
  b: Browser,
  body: Record<string, unknown>,
) {
  const res = await b.request("/api/proxy", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${b.session}` },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}

/** What `assertSelector` expects of the elements a selector matches. */
export interface SelectorExpectation {
  /** Exactly this many matches (default: at least one). */
  count?: number;
  /** Every match's whitespace-collapsed text contains this string, or matches this pattern. */
  text?: string | RegExp;
}

/** A page's elements matching a CSS selector, on a parsed DOM (linkedom). */
export function querySelectorAll(html: string, selector: string): Element[] {
  const { document } = parseHTML(html);
  return [...document.querySelectorAll(selector)] as unknown as Element[];
}

/** The whitespace-collapsed text of an element. */
export function textOf(el: Element): string {
  return (el.textContent ?? "").replace(/\s+/g, " ").trim();
}

/**
 * Asserts that `selector` matches in the parsed page (at least once, or exactly `count` times) and
 * that every match's text has `text`. Returns the matches for further checks.
 */
export function assertSelector(
  html: string,
  selector: string,
  expect: SelectorExpectation = {},
): Element[] {
  const found = querySelectorAll(html, selector);
  if (expect.count === undefined) assert.ok(found.length > 0, `no element matches ${selector}`);
  else assert.equal(found.length, expect.count, `${selector}: ${found.length} matches`);
  const want = expect.text;
  if (want === undefined) return found;
  for (const el of found) {
    const text = textOf(el);
    const ok = typeof want === "string" ? text.includes(want) : want.test(text);
    assert.ok(ok, `${selector}: text ${JSON.stringify(text)} lacks ${want}`);
  }
  return found;
}

/** The text a reader sees in a page: the body's whitespace-collapsed text, without scripts or styles. */
export function pageText(html: string): string {
  const { document } = parseHTML(html);
  for (const el of [...document.querySelectorAll("script, style, template")]) el.remove();
  return textOf((document.body ?? document.documentElement) as unknown as Element);
}

/** Asserts that the page's visible text has `want` (a string, or a pattern over the text). */
export function assertText(html: string, want: string | RegExp): void {
  const text = pageText(html);
  const ok = typeof want === "string" ? text.includes(want) : want.test(text);
  assert.ok(ok, `the page's text lacks ${want}: ${JSON.stringify(text.slice(0, 400))}`);
}

/** Asserts that the page's visible text does not have `want`. */
export function assertNoText(html: string, want: string | RegExp): void {
  const text = pageText(html);
  const found = typeof want === "string" ? text.includes(want) : want.test(text);
  assert.ok(!found, `the page's text has ${want}`);
}

/**
 * The accessible name of an element, as far as these pages need it: `aria-label`, else the text of
 * the elements `aria-labelledby` names, else the text of a `<label for>`, else its own text.
 */
export function nameOf(el: Element): string {
  const doc = el.ownerDocument;
  const label = el.getAttribute("aria-label");
  if (label !== null) return label.replace(/\s+/g, " ").trim();
  const by = el.getAttribute("aria-labelledby");
  if (by !== null) {
    return by.split(/\s+/).map((id) => doc.getElementById(id)).filter((x) => x !== null)
      .map((x) => textOf(x as Element)).join(" ");
  }
  const id = el.getAttribute("id");
  const forLabel = id === null ? null : doc.querySelector(`label[for="${id}"]`);
  return forLabel ? textOf(forLabel as unknown as Element) : textOf(el);
}

/**
 * Asserts that elements matching `selector` with the accessible name `name` (exactly, or matching a
 * pattern) exist in the page: at least one, or exactly `count`. Returns them.
 */
export function assertNamed(
  html: string,
  selector: string,
  name: string | RegExp,
  count?: number,
): Element[] {
  const all = querySelectorAll(html, selector);
  const found = all.filter((el) =>
    typeof name === "string" ? nameOf(el) === name : name.test(nameOf(el))
  );
  const names = JSON.stringify(all.map(nameOf).slice(0, 20));
  if (count === undefined) {
    assert.ok(found.length > 0, `no ${selector} named ${name} among ${names}`);
  } else {assert.equal(
      found.length,
      count,
      `${selector} named ${name}: ${found.length} of ${names}`,
    );}
  return found;
}

/** The text of each cell (`th`, `td`) of each row of the page's tables, in page order. */
export function tableRows(html: string, selector = "table"): string[][] {
  return querySelectorAll(html, `${selector} tr`).map((tr) =>
    [...tr.querySelectorAll("th, td")].map((cell) => textOf(cell as unknown as Element))
  );
}

/**
 * Asserts that a table row starts with these cells (each equal to a string, or matching a pattern),
 * and returns that row's cells.
 */
export function assertRow(html: string, cells: (string | RegExp)[], selector = "table"): string[] {
  const rows = tableRows(html, selector);
  const fits = (row: string[]) =>
    cells.every((want, i) =>
      i < row.length && (typeof want === "string" ? row[i] === want : want.test(row[i]))
    );
  const row = rows.find(fits);
  assert.ok(row, `no row starts ${cells.join(" | ")} among ${JSON.stringify(rows.slice(0, 12))}`);
  return row;
}

/** The text of the `<dd>` after the `<dt>` whose text is `term`, or undefined when there is none. */
export function definition(html: string, term: string): string | undefined {
  const dt = querySelectorAll(html, "dt").find((el) => textOf(el) === term);
  const dd = dt?.nextElementSibling;
  return dd && dd.tagName === "DD" ? textOf(dd as Element) : undefined;
}
