/**
 * The one media-type parser (lib/http/kernel/media_type.ts, issue #23) as clients see it: `Accept` on
 * the MCP endpoint, the docs pages and the 404/405 pages, `Content-Type` on bodies.
 */

import assert from "node:assert/strict";
import { jsonPost, makeApp } from "../_helpers.ts";
import { acceptQuality, mediaTypeEssence } from "../../lib/http/kernel/media_type.ts";

const PING = { jsonrpc: "2.0", id: 1, method: "ping" };

Deno.test("POST /api/mcp answers by the weights of Accept (RFC 9110 §12.5.1)", async (t) => {
  await using a = await makeApp();
  const status = async (accept: string) => {
    const res = await a.request("/api/mcp", jsonPost(PING, { Accept: accept }));
    await res.body?.cancel();
    return res.status;
  };
  await t.step("application/json, application/* or */* is served", async () => {
    assert.equal(await status("application/json, text/event-stream"), 200);
    assert.equal(await status("application/*"), 200);
    assert.equal(await status("*/*"), 200);
    assert.equal(await status("APPLICATION/JSON"), 200);
  });
  await t.step("a client that refuses JSON with q=0 gets 406 (RFC 9110 §12.4.2)", async () => {
    assert.equal(await status("application/json;q=0, text/event-stream"), 406);
    assert.equal(await status("text/event-stream, */*;q=0"), 406);
  });
  await t.step("only text/event-stream → 406", async () => {
    assert.equal(await status("text/event-stream"), 406);
  });
});

Deno.test("GET /docs/errors gives Markdown only to a client that names it", async (t) => {
  await using a = await makeApp();
  const typeOf = async (accept: string) => {
    const res = await a.request("/docs/errors", { headers: { Accept: accept } });
    await res.body?.cancel();
    return mediaTypeEssence(res.headers.get("content-type"));
  };
  await t.step("text/markdown → Markdown; */* and text/* → HTML", async () => {
    assert.equal(await typeOf("text/markdown"), "text/markdown");
    assert.equal(await typeOf("*/*"), "text/html");
    assert.equal(await typeOf("text/*"), "text/html");
  });
  await t.step("HTML weighted above Markdown → HTML", async () => {
    assert.equal(await typeOf("text/markdown;q=0.5, text/html"), "text/html");
  });
});

Deno.test("GET /no-such-page gives the HTML 404 to a browser and JSON to a script", async () => {
  await using a = await makeApp();
  const browser = await a.request("/no-such-page", {
    headers: { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
  });
  await browser.body?.cancel();
  assert.equal(browser.status, 404);
  assert.equal(mediaTypeEssence(browser.headers.get("content-type")), "text/html");
  const script = await a.request("/no-such-page", { headers: { Accept: "*/*" } });
  assert.equal(script.status, 404);
  assert.equal((await script.json()).code, "not_found");
});

Deno.test("acceptQuality() takes the weight of the most specific matching range", () => {
  assert.equal(acceptQuality("text/*;q=0.3, text/html;q=0.7, */*;q=0.1", "text/html"), 0.7);
  assert.equal(acceptQuality("text/*;q=0.3, */*;q=0.1", "text/plain"), 0.3);
  assert.equal(acceptQuality("*/*;q=0.1", "image/png"), 0.1);
  assert.equal(acceptQuality("text/html", "application/json"), 0);
  assert.equal(acceptQuality("text/html;q=abc", "text/html"), 0);
});

Deno.test("mediaTypeEssence() drops parameters and case", () => {
  assert.equal(mediaTypeEssence("Application/JSON; charset=utf-8"), "application/json");
  assert.equal(mediaTypeEssence(undefined), "");
});
