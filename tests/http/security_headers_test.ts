/**
 * Security headers on every route of the manifest (issue #9 item 7): every response is `nosniff`;
 * every HTML page — whatever route renders it, errors included — has a CSP with
 * `frame-ancestors 'none'`, `X-Frame-Options: DENY` and a `Referrer-Policy`.
 */

import assert from "node:assert/strict";
import { routes } from "../../manifest.gen.ts";
import { jsonPost, makeApp, type TestApp } from "../_helpers.ts";
import {
  htmlContentSecurityPolicy,
  SERVICE_WORKER_CSP,
} from "../../lib/http/kernel/security_headers.ts";
import { signedUpBrowser } from "./_web.ts";

/** A concrete path for each dynamic route; a new dynamic route must be added here. */
const SAMPLES: Record<string, string[]> = {
  "/docs/:slug": [], // filled with every documentation page below
  "/.well-known/oauth-protected-resource/:path{.+}": [
    "/.well-known/oauth-protected-resource/api/mcp",
  ],
  "/static/:path{.+}": ["/static/styles.css", "/static/no-such-file.css"],
  "/app/:path{.+}": ["/app/no-such-page"],
};

function concretePaths(path: string, slugs: string[]): string[] {
  if (!path.includes(":")) {
    return [path, path.startsWith("/api/") ? "/api/v1/" + path.slice(5) : path];
  }
  if (path === "/docs/:slug") return slugs.flatMap((s) => [`/docs/${s}`, `/docs/${s}.md`]);
  const sample = SAMPLES[path];
  assert.ok(sample, `tests/http/security_headers_test.ts needs a sample path for ${path}`);
  return sample;
}

function assertHtmlHeaders(res: Response, what: string): void {
  const csp = res.headers.get("content-security-policy") ?? "";
  assert.match(csp, /frame-ancestors 'none'/, `${what}: CSP with frame-ancestors`);
  assert.match(csp, /default-src 'none'/, `${what}: CSP default-src`);
  assert.match(csp, /script-src 'self'(;|$)/, `${what}: no inline or remote script`);
  assert.match(csp, /base-uri 'none'/, `${what}: base-uri`);
  assert.match(csp, /style-src 'self'(;|$)/, `${what}: no inline styles`);
  assert.equal(res.headers.get("x-frame-options"), "DENY", what);
  assert.equal(res.headers.get("referrer-policy"), "same-origin", what);
}

async function probe(app: TestApp, method: string, path: string, html: string[]) {
  const init: RequestInit = method === "POST"
    ? { ...jsonPost({}), headers: { "Content-Type": "application/json", Accept: "text/html" } }
    : { method, headers: { Accept: "text/html" } };
  const res = await app.request(path, init);
  await res.body?.cancel();
  const what = `${method} ${path} → ${res.status}`;
  assert.equal(res.headers.get("x-content-type-options"), "nosniff", what);
  if (/^text\/html/.test(res.headers.get("content-type") ?? "")) {
    assertHtmlHeaders(res, what);
    html.push(`${method} ${path}`);
  } else if (path === "/sw.js" && res.status === 200) {
    // a worker's policy comes with its script (CSP Level 3 §4.2.2; tests/http/service_worker_test.ts)
    assert.equal(res.headers.get("content-security-policy"), SERVICE_WORKER_CSP, what);
  } else {
    assert.equal(res.headers.get("content-security-policy"), null, `${what}: CSP only on HTML`);
  }
}

Deno.test("security headers: GET, POST, OPTIONS on every route of the manifest", async (t) => {
  await using app = await makeApp();
  const slugs = [...Deno.readDirSync(new URL("../../content/docs/", import.meta.url))]
    .filter((e) => e.name.endsWith(".md")).map((e) => e.name.slice(0, -3));
  slugs.push("no-such-page");
  const html: string[] = [];
  for (const { path, module } of routes) {
    const methods = Object.keys(module.handler).filter((m) => m !== "HEAD");
    await t.step(`${methods.join(", ")} ${path}`, async () => {
      for (const concrete of concretePaths(path, slugs)) {
        for (const method of [...methods, "OPTIONS"]) await probe(app, method, concrete, html);
      }
    });
  }
  await t.step("the HTML pages were reached", () => {
    for (const page of ["GET /", "GET /api", "GET /docs/mcp", "GET /api/oauth/authorize"]) {
      assert.ok(html.includes(page), `${page} answered HTML: ${html.join(", ")}`);
    }
    assert.ok(html.length >= slugs.length + 4, html.join(", "));
  });
});

Deno.test("GET /app/settings", async (t) => {
  await using app = await makeApp();
  await t.step("a signed-in page has the service's one HTML policy, no exception", async () => {
    const { status, res } = await (await signedUpBrowser(app)).get("/app/settings");
    assert.equal(status, 200);
    assert.equal(res.headers.get("content-security-policy"), htmlContentSecurityPolicy());
    assertHtmlHeaders(res, "settings page");
  });
});

Deno.test("GET /api/oauth/authorize", async (t) => {
  await using app = await makeApp();
  await t.step(
    "the sign-in page keeps its own form-action and gets the common headers",
    async () => {
      const reg = await app.request(
        "/api/oauth/register",
        jsonPost({ client_name: "Headers App", redirect_uris: ["https://app.example.com/cb"] }),
      );
      const clientId = (await reg.json()).client_id;
      const query = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: "https://app.example.com/cb",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
        state: "s",
      });
      const res = await app.request(`/api/oauth/authorize?${query}`);
      const body = await res.text();
      assert.equal(res.status, 200, body);
      assertHtmlHeaders(res, "sign-in page");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.match(res.headers.get("content-security-policy")!, /form-action 'self'(;| )/);
    },
  );
});

Deno.test("htmlContentSecurityPolicy() is the policy the security page documents", async () => {
  const page = await Deno.readTextFile(new URL("../../content/docs/security.md", import.meta.url));
  assert.ok(page.includes("`" + htmlContentSecurityPolicy() + "`"), "docs/security.md is current");
});
