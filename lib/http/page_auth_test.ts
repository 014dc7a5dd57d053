import assert from "node:assert/strict";
import { csrfTokenFor, safeNext } from "./page_auth.ts";

Deno.test("safeNext() keeps same-site relative paths", () => {
  assert.equal(safeNext("/app/history?range=90#x"), "/app/history?range=90#x");
  assert.equal(
    safeNext("/api/oauth/authorize?client_id=a&state=b"),
    "/api/oauth/authorize?client_id=a&state=b",
  );
});

Deno.test("safeNext() refuses open redirects", () => {
  for (
    const evil of [
      "//evil.example",
      "/\\evil.example",
      "\\\\evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "/\t/evil.example",
      "/%0a/evil",
      "evil",
      "",
      null,
      undefined,
    ]
  ) {
    const got = safeNext(evil);
    assert.ok(got === "/app" || got.startsWith("/%0a"), `${JSON.stringify(evil)} → ${got}`);
    assert.ok(!got.startsWith("//"));
  }
  assert.equal(safeNext("//evil", "/"), "/");
});

Deno.test("csrfTokenFor() is stable per secret and differs between secrets", () => {
  assert.equal(csrfTokenFor("rt_ses_a"), csrfTokenFor("rt_ses_a"));
  assert.notEqual(csrfTokenFor("rt_ses_a"), csrfTokenFor("rt_ses_b"));
  assert.ok(!csrfTokenFor("rt_ses_a").includes("rt_ses_a"));
});
