import assert from "node:assert/strict";
import { API_VERSION } from "../../lib/foundation/config.ts";
import { SUPPORTED_REVISIONS } from "../../lib/mcp/protocol.ts";
import { DOCUMENTED_INPUT_SCHEMAS, TOOL_DESCRIPTORS } from "../../lib/tools/registry.ts";
import { orderedPages } from "../../lib/http/kernel/docs_response.ts";
import { jsonPost, makeApp } from "../_helpers.ts";

const BASE = "http://localhost:8000";

/** Every discovery path this issue serves, with the content type the spec gives it. */
const DOCUMENTS: [path: string, contentType: string][] = [
  [
    "/.well-known/api-catalog",
    'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
  ],
  ["/.well-known/mcp.json", "application/json"],
  ["/mcp.json", "application/json"],
  ["/llms.txt", "text/plain; charset=utf-8"],
  ["/llms-full.txt", "text/plain; charset=utf-8"],
  ["/cli/routine-tracker-cli.tgz", "application/gzip"],
];

Deno.test("discovery documents: no credential, content type, strong ETag, 304", async (t) => {
  await using h = await makeApp();
  for (const [path, contentType] of DOCUMENTS) {
    await t.step(`GET ${path}`, async () => {
      const res = await h.request(path);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), contentType);
      assert.equal(res.headers.get("api-version"), API_VERSION);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      const body = new Uint8Array(await res.arrayBuffer());
      assert.ok(body.byteLength > 0);
      assert.equal(res.headers.get("content-length"), String(body.byteLength));
      const etag = res.headers.get("etag");
      assert.match(etag ?? "", /^"[A-Za-z0-9_-]{43}"$/, "a strong ETag (no W/ prefix)");

      const again = await h.request(path, { headers: { "If-None-Match": etag! } });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get("etag"), etag);
      assert.equal(await again.text(), "");

      const weakForm = await h.request(path, { headers: { "If-None-Match": `"x", W/${etag}` } });
      assert.equal(weakForm.status, 304, "If-None-Match uses weak comparison (RFC 9110 §13.1.2)");

      const stale = await h.request(path, { headers: { "If-None-Match": '"stale"' } });
      assert.equal(stale.status, 200);
      assert.deepEqual(new Uint8Array(await stale.arrayBuffer()), body);
    });
  }
});

Deno.test("GET /.well-known/api-catalog", async (t) => {
  await using h = await makeApp();

  await t.step("is RFC 9264 linkset JSON: a linkset array of objects with anchors", async () => {
    const catalog = await (await h.request("/.well-known/api-catalog")).json();
    assert.deepEqual(Object.keys(catalog), ["linkset"]);
    assert.ok(Array.isArray(catalog.linkset) && catalog.linkset.length > 0);
    for (const context of catalog.linkset) {
      assert.equal(typeof context.anchor, "string");
      new URL(context.anchor);
      for (const [rel, targets] of Object.entries(context)) {
        if (rel === "anchor") continue;
        assert.ok(Array.isArray(targets), `${rel} is an array of target objects`);
        for (const target of targets as Record<string, unknown>[]) {
          assert.equal(typeof target.href, "string");
          assert.ok(String(target.href).startsWith(BASE));
        }
      }
    }
  });

  await t.step("names every API with service-desc, service-doc and status", async () => {
    const { linkset } = await (await h.request("/.well-known/api-catalog")).json();
    const byAnchor = new Map(linkset.map((c: { anchor: string }) => [c.anchor, c]));
    const catalog = byAnchor.get(`${BASE}/.well-known/api-catalog`) as { item: { href: string }[] };
    assert.deepEqual(catalog.item.map((i) => i.href), [
      `${BASE}/api`,
      `${BASE}/api/mcp`,
      `${BASE}/api/sandbox`,
    ]);
    const api = byAnchor.get(`${BASE}/api`) as Record<string, { href: string; title?: string }[]>;
    assert.equal(api["service-desc"][0].href, `${BASE}/openapi.json`);
    assert.ok(api["service-doc"].some((l) => l.href === `${BASE}/api`));
    assert.equal(api.status[0].href, `${BASE}/api/proxy`);
    assert.match(api.status[0].title ?? "", /POST \{"action":"healthCheck"\}/);
    const mcp = byAnchor.get(`${BASE}/api/mcp`) as Record<string, { href: string }[]>;
    assert.ok(mcp["service-desc"].some((l) => l.href === `${BASE}/.well-known/mcp.json`));
    assert.ok(mcp.status.length === 1);
  });

  await t.step("the status link, followed as described, is the health check", async () => {
    const { linkset } = await (await h.request("/.well-known/api-catalog")).json();
    const status = linkset[1].status[0];
    assert.deepEqual(status.method, [{ value: "POST" }]);
    const res = await h.request(
      new URL(status.href).pathname,
      jsonPost(JSON.parse(status["request-body"][0].value)),
    );
    assert.equal(res.status, 200);
    const report = await res.json();
    assert.equal(report.status, "healthy");
    assert.equal(report.denoKv, "connected");
  });

  await t.step('HEAD answers with Link rel="api-catalog" and no body (RFC 9727 §2)', async () => {
    const res = await h.request("/.well-known/api-catalog", { method: "HEAD" });
    assert.equal(res.status, 200);
    assert.ok(
      (res.headers.get("link") ?? "").includes(
        `<${BASE}/.well-known/api-catalog>; rel="api-catalog"`,
      ),
    );
    assert.equal(await res.text(), "");
  });

  await t.step("builds URLs from BASE_URL, never from the Host header", async () => {
    const res = await h.request("http://attacker.example/.well-known/api-catalog", {
      headers: { Host: "attacker.example" },
    });
    const text = await res.text();
    assert.ok(!text.includes("attacker.example"));
    assert.ok(text.includes(BASE));
  });
});

Deno.test("GET /.well-known/mcp.json", async (t) => {
  await using h = await makeApp();
  const manifest = await (await h.request("/.well-known/mcp.json")).json();

  await t.step("carries valid server-card fields (spec-anchors §8.7)", () => {
    assert.equal(
      manifest.$schema,
      "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
    );
    assert.match(manifest.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    assert.equal(manifest.name, "localhost/routine-tracker");
    assert.ok(manifest.description.length >= 1 && manifest.description.length <= 100);
    assert.ok(manifest.title.length <= 100);
    assert.match(manifest.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(manifest.remotes, [{
      type: "streamable-http",
      url: `${BASE}/api/mcp`,
      supportedProtocolVersions: [...SUPPORTED_REVISIONS],
    }]);
  });

  await t.step("names transport, endpoint, sandbox and revisions", () => {
    assert.equal(manifest.transport.type, "streamable-http");
    assert.equal(manifest.endpoint, `${BASE}/api/mcp`);
    assert.equal(manifest.sandbox.endpoint, `${BASE}/api/sandbox`);
    assert.equal(manifest.sandbox.credential, "none");
    assert.deepEqual(manifest.protocolRevisions.supported, [...SUPPORTED_REVISIONS]);
  });

  await t.step("lists every tool of the registry", () => {
    assert.deepEqual(
      manifest.tools.map((t: { name: string }) => t.name),
      TOOL_DESCRIPTORS.map((t) => t.name),
    );
    assert.equal(manifest.tools.length, 18);
    for (const [i, tool] of manifest.tools.entries()) {
      assert.deepEqual(tool.inputSchema, DOCUMENTED_INPUT_SCHEMAS.get(TOOL_DESCRIPTORS[i].name));
      assert.equal(tool.annotations.readOnlyHint, true);
    }
  });

  await t.step("states access terms: no human on the automated path", () => {
    const terms = manifest.accessTerms;
    assert.equal(terms.price, "free");
    assert.deepEqual(terms.scopes, ["read"]);
    assert.ok(terms.credentialSteps.length >= 3);
    assert.ok(terms.credentialSteps.every((s: { humanInvolved: boolean }) => !s.humanInvolved));
    assert.equal(terms.delegatedAccess.humanInvolved, true);
    assert.deepEqual(terms.delegatedAccess.codeChallengeMethods, ["S256"]);
  });

  await t.step(
    "prices under _meta routine-tracker/pricing: free access, 50 USD deepens coaching",
    () => {
      const pricing = manifest._meta["routine-tracker/pricing"];
      assert.equal(pricing.tracking, "free");
      assert.equal(pricing.api, "free");
      assert.equal(pricing.mcp, "free");
      const paid = pricing.plans.find((p: { name: string }) => p.name === "paid");
      assert.equal(paid.price, 50);
      assert.equal(pricing.currency, "USD");
      assert.equal(paid.period, "year");
      assert.match(paid.changes, /coach/);
      assert.match(paid.doesNotChange, /API/);
    },
  );

  await t.step("/mcp.json is the same document", async () => {
    assert.deepEqual(await (await h.request("/mcp.json")).json(), manifest);
  });
});

Deno.test("GET /llms.txt and /llms-full.txt", async (t) => {
  await using h = await makeApp();
  const pages = orderedPages(BASE);

  await t.step(
    "llms.txt follows llmstxt.org: H1, blockquote, H2 link lists, Optional",
    async () => {
      const text = await (await h.request("/llms.txt")).text();
      const lines = text.split("\n");
      assert.equal(lines[0], "# Routine Tracker");
      assert.equal(lines[1], "");
      assert.match(lines[2], /^> \S/);
      assert.equal(lines.filter((l) => l.startsWith("# ")).length, 1, "exactly one H1");
      const sections = lines.filter((l) => l.startsWith("## "));
      assert.ok(sections.includes("## Docs"));
      assert.equal(sections.at(-1), "## Optional");
      // Inside the H2 sections, every non-blank line is a `- [name](url)` item (with optional notes).
      const firstH2 = lines.findIndex((l) => l.startsWith("## "));
      for (const line of lines.slice(firstH2)) {
        if (line === "" || line.startsWith("## ")) continue;
        assert.match(line, /^- \[[^\]]+\]\(https?:\/\/[^)\s]+\)(: .+)?$/, line);
      }
      for (const page of pages) {
        assert.ok(text.includes(`](${BASE}/docs/${page.slug}.md)`), `links ${page.slug}.md`);
      }
    },
  );

  await t.step("llms-full.txt inlines every page", async () => {
    const text = await (await h.request("/llms-full.txt")).text();
    assert.match(text, /^# Routine Tracker/);
    for (const page of pages) {
      assert.ok(text.includes(page.markdown.trim()), `inlines ${page.slug}`);
      assert.ok(text.includes(`Source: ${BASE}/docs/${page.slug}.md`));
    }
  });
});
