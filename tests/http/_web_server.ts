/**
 * A browser-like client of a real server (`startServer`) for the Settings and import tests:
 * a cookie jar, GET, urlencoded and multipart form posts with our Origin, no redirects followed.
 */

import assert from "node:assert/strict";
import type { TestServer } from "../_helpers.ts";

/** What a page request answers. */
export interface PageReply {
  status: number;
  html: string;
  location: string | null;
  res: Response;
}

/** A browser session against `server`. */
export class WebClient {
  cookies = new Map<string, string>();
  constructor(readonly server: TestServer) {}

  #absorb(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === "" || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) {
        this.cookies.delete(name);
      } else this.cookies.set(name, value);
    }
  }

  /** The `Cookie` header the browser would send. */
  get cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async #send(path: string, init: RequestInit = {}): Promise<PageReply> {
    const res = await fetch(this.server.url + path, {
      ...init,
      redirect: "manual",
      headers: { Cookie: this.cookie, ...init.headers },
    });
    this.#absorb(res);
    const html = await res.text();
    return { status: res.status, html, location: res.headers.get("location"), res };
  }

  /** GET a page. */
  get(path: string): Promise<PageReply> {
    return this.#send(path);
  }

  /** POST an urlencoded form with our Origin (override `headers` to test CSRF). */
  post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = { Origin: this.server.url },
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
    return this.#send(path, { method: "POST", headers: { Origin: this.server.url }, body: form });
  }

  /** The session token the browser holds. */
  get session(): string {
    const token = this.cookies.get("rt_session");
    assert.ok(token, "signed in");
    return token!;
  }
}

/** Signs a new member up through `/signup` and returns the signed-in client. */
export async function signedUp(server: TestServer, username: string): Promise<WebClient> {
  const w = new WebClient(server);
  await w.get("/signup");
  const res = await w.post("/signup", { username, password: "a long passphrase" });
  assert.equal(res.status, 303, res.html);
  return w;
}

/** The value of the hidden input `name` in a page. */
export function hiddenValue(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  assert.ok(m, `the page has a ${name} field`);
  return m[1];
}

/** A `/api/proxy` action with the client's session as the bearer; asserts 200. */
export async function proxyOf(w: WebClient, body: Record<string, unknown>) {
  const res = await fetch(`${w.server.url}/api/proxy`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${w.session}` },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}
