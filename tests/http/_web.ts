/**
 * Helpers for the web app's HTTP tests (issue #11): a browser-like cookie jar over `app.request`,
 * form posts with our Origin, and light HTML inspection (regex on the server-rendered markup).
 */

import assert from "node:assert/strict";
import type { TestApp } from "../_helpers.ts";

/** The origin of `testConfig()` (BASE_URL http://localhost:8000). */
export const OWN_ORIGIN = "http://localhost:8000";

/** A minimal browser: keeps cookies, sends them, never follows redirects. */
export class Browser {
  cookies = new Map<string, string>();
  constructor(private t: TestApp) {}

  private absorb(res: Response): void {
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

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { Cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
  }

  /** GET a page. */
  async get(path: string): Promise<{ status: number; html: string; res: Response }> {
    const res = await this.t.request(path, { headers: this.cookieHeader() });
    this.absorb(res);
    return { status: res.status, html: await res.text(), res };
  }

  /** POST a form (urlencoded) with our Origin unless `headers` says otherwise. */
  async post(
    path: string,
    fields: Record<string, string> | [string, string][],
    headers: Record<string, string> = { Origin: OWN_ORIGIN },
  ): Promise<{ status: number; html: string; location: string | null; res: Response }> {
    const res = await this.t.request(path, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        ...this.cookieHeader(),
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    });
    this.absorb(res);
    return {
      status: res.status,
      html: await res.text(),
      location: res.headers.get("location"),
      res,
    };
  }

  /** The session token the browser holds. */
  get session(): string | undefined {
    return this.cookies.get("rt_session");
  }
}

/** Signs a new member up through the page and returns the signed-in browser. */
export async function signedUpBrowser(t: TestApp, username = "alice"): Promise<Browser> {
  const b = new Browser(t);
  await b.get("/signup");
  const res = await b.post("/signup", { username, password: "a long passphrase" });
  assert.equal(res.status, 303, res.html);
  assert.ok(b.session, "a session cookie was set");
  return b;
}

/** The `csrf` hidden field's value in a page. */
export function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  assert.ok(m, "the page has a csrf field");
  return m[1];
}

/** The number of elements matching a tag (cheap structural checks). */
export function count(html: string, re: RegExp): number {
  return [
    ...html.matchAll(new RegExp(re.source, re.flags.includes("g") ? re.flags : re.flags + "g")),
  ]
    .length;
}

/** The label text of the control with the given id. */
export function labelFor(html: string, id: string): string | null {
  const m = new RegExp(`<label[^>]*for="${id}"[^>]*>([\\s\\S]*?)</label>`).exec(html);
  return m ? m[1].replace(/<[^>]+>/g, "").trim() : null;
}

/** Calls a `/api/proxy` action with the browser's session as a bearer (what scripts do). */
export async function proxyAs(
  t: TestApp,
  b: Browser,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const res = await t.request("/api/proxy", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${b.session}` },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}
