import assert from "node:assert/strict";
import { API_VERSION } from "../../lib/foundation/config.ts";
import { MIN_DAYS_SUNSET_NOTICE, MIN_DAYS_TO_SUNSET_NOTICE } from "../../lib/policy/deprecation.ts";
import { orderedPages } from "../../lib/http/kernel/docs_response.ts";
import { makeApp, type TestApp } from "../_helpers.ts";
import { assertSelector } from "./_web.ts";

const BASE = "http://localhost:8000";

/** Slugs this issue writes; the test also covers every other page present. */
const OWN_PAGES = ["developers", "cli", "versioning", "membership", "changelog"];

Deno.test("docs: documentation pages", async (t) => {
  await using h = await makeApp();
  const pages = orderedPages(BASE);
  const slugs = pages.map((p) => p.slug);
  for (const slug of OWN_PAGES) assert.ok(slugs.includes(slug), `page ${slug} exists`);

  for (const page of pages) {
    await t.step(
      `/docs/${page.slug} renders as HTML with navigation and heading anchors`,
      async () => {
        const res = await h.request(`/docs/${page.slug}`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
        assert.equal(res.headers.get("vary"), "Accept");
        const html = await res.text();
        assertSelector(html, 'nav.docs-nav[aria-label="Documentation"]', { count: 1 });
        assertSelector(html, `nav.docs-nav a[aria-current="page"]`, { count: 1 });
        assertSelector(html, `nav.docs-nav a[href="/docs/${page.slug}"][aria-current="page"]`, {
          count: 1,
        });
        assertSelector(html, "main#main", { count: 1 });
        for (const heading of page.headings) {
          assert.ok(html.includes(`id="${heading.id}"><a class="anchor" href="#${heading.id}"`));
        }
      },
    );

    await t.step(`/docs/${page.slug} as Markdown (Accept and .md)`, async () => {
      const negotiated = await h.request(`/docs/${page.slug}`, {
        headers: { Accept: "text/markdown" },
      });
      assert.equal(negotiated.status, 200);
      assert.equal(negotiated.headers.get("content-type"), "text/markdown; charset=utf-8");
      assert.equal(negotiated.headers.get("vary"), "Accept");
      const markdown = await negotiated.text();
      assert.ok(markdown.startsWith(`# ${page.title}\n`));
      assert.ok(!markdown.includes("{base_url}"), "placeholders are filled");
      const raw = await h.request(`/docs/${page.slug}.md`);
      assert.equal(raw.headers.get("content-type"), "text/markdown; charset=utf-8");
      assert.equal(await raw.text(), markdown);
    });
  }

  await t.step("aliases serve their pages", async () => {
    const aliases: [string, string][] = [
      ["/api", "developers"],
      ["/api-docs", "developers"],
      ["/cli", "cli"],
      ["/deprecation", "versioning"],
    ];
    for (const [path, slug] of aliases) {
      const res = await h.request(path, { headers: { Accept: "text/markdown" } });
      assert.equal(res.status, 200, path);
      assert.equal(await res.text(), pages.find((p) => p.slug === slug)!.markdown, path);
      const html = await (await h.request(path)).text();
      assertSelector(html, 'html[lang="en"]', { count: 1 });
    }
    assert.equal((await h.request("/docs/developers.md")).status, 200);
  });

  await t.step("the developer overview links every page", () => {
    const overview = pages.find((p) => p.slug === "developers")!.markdown;
    for (const slug of slugs) {
      if (slug !== "developers") assert.ok(overview.includes(`](/docs/${slug})`), `links ${slug}`);
    }
  });

  await t.step("the versioning page states what lib/policy/deprecation.ts enforces", () => {
    const text = pages.find((p) => p.slug === "versioning")!.markdown;
    assert.ok(text.includes(`Api-Version: ${API_VERSION}`));
    assert.ok(text.includes(`**${MIN_DAYS_TO_SUNSET_NOTICE} days**`));
    assert.ok(text.includes(`**${MIN_DAYS_SUNSET_NOTICE} days**`));
    assert.match(text, /Deprecation: @\d+/);
    assert.match(text, /Sunset: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT/);
    assert.ok(text.includes('rel="deprecation"; type="text/html"'));
    assert.ok(text.includes('rel="successor-version"'));
    assert.ok(text.includes("410 Gone"));
  });

  await t.step("the membership page and changelog say what the spec says", () => {
    const membership = pages.find((p) => p.slug === "membership")!.markdown;
    assert.match(membership, /50 USD a year/);
    assert.match(membership, /does not\s+change what the API exposes/);
    const changelog = pages.find((p) => p.slug === "changelog")!.markdown;
    assert.match(changelog, /None at present/);
  });

  await t.step("every link in the docs and in llms.txt resolves", async () => {
    const links = new Set<string>();
    for (const page of pages) {
      const html = await (await h.request(`/docs/${page.slug}`)).text();
      for (const m of html.matchAll(/href="([^"]+)"/g)) {
        links.add(new URL(m[1].replaceAll("&amp;", "&"), `${BASE}/docs/${page.slug}`).href);
      }
    }
    const llms = await (await h.request("/llms.txt")).text();
    for (const m of llms.matchAll(/\]\(([^)\s]+)\)/g)) links.add(m[1]);
    const broken = await brokenLinks(h, links);
    assert.deepEqual(broken, []);
  });
});

/** A signed-in member's cookie, to follow links into the web app (`/app/…`). */
async function memberCookie(h: TestApp): Promise<string> {
  const res = await h.request("/api/auth", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      action: "register",
      username: "linkcheck",
      password: "a long passphrase",
    }),
  });
  await res.body?.cancel();
  return /rt_session=[^;]+/.exec(res.headers.get("set-cookie") ?? "")![0];
}

/**
 * Same-origin links that answer ≥ 400 or point at a missing fragment; others are not fetched.
 * Links into the web app (`/app/…`, e.g. Settings → API tokens) are followed signed in.
 */
async function brokenLinks(h: TestApp, links: Iterable<string>): Promise<string[]> {
  const broken: string[] = [];
  const htmlByPath = new Map<string, string>();
  let cookie: string | undefined;
  for (const link of links) {
    const url = new URL(link);
    if (url.origin !== BASE) continue; // external references (RFCs, MCP spec) need the network
    const path = url.pathname;
    if (path.startsWith("/app")) cookie ??= await memberCookie(h);
    const res = await h.request(path + url.search, {
      headers: path.startsWith("/app") ? { Cookie: cookie! } : {},
    });
    if (res.status >= 400) {
      await res.body?.cancel();
      broken.push(`${link} → ${res.status}`);
      continue;
    }
    if (url.hash.length > 1) {
      if (!htmlByPath.has(path)) htmlByPath.set(path, await res.text());
      else await res.body?.cancel();
      const id = decodeURIComponent(url.hash.slice(1));
      if (!htmlByPath.get(path)!.includes(`id="${id}"`)) broken.push(`${link} → no #${id}`);
    } else {
      await res.body?.cancel();
    }
  }
  return broken;
}

Deno.test("content negotiation: HTML unless text/markdown is asked for", async (t) => {
  await using a = await makeApp();
  const cases: [string | null, string][] = [
    [null, "text/html; charset=utf-8"],
    ["*/*", "text/html; charset=utf-8"],
    ["text/html,application/xhtml+xml,*/*;q=0.8", "text/html; charset=utf-8"],
    ["text/markdown", "text/markdown; charset=utf-8"],
    ["text/markdown, text/html;q=0.5", "text/markdown; charset=utf-8"],
    ["text/html, text/markdown;q=0.5", "text/html; charset=utf-8"],
    ["text/markdown;q=0", "text/html; charset=utf-8"],
  ];
  for (const [accept, type] of cases) {
    await t.step(`Accept: ${accept ?? "(none)"}`, async () => {
      const res = await a.request("/docs/mcp", accept ? { headers: { Accept: accept } } : {});
      await res.body?.cancel();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), type);
      assert.equal(res.headers.get("vary"), "Accept");
    });
  }
});
