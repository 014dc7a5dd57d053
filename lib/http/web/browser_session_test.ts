import assert from "node:assert/strict";
import { csrfTokenFor, safeNext } from "./browser_session.ts";

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

Deno.test("safeNext() tests the normalised path, so no dot segment or encoding makes it //", () => {
  for (
    const evil of [
      // issue #19: each of these normalised to `//evil.com`
      "/.//evil.com",
      "/..//evil.com",
      "/%2e//evil.com",
      "/a/..//evil.com",
      // more of the same family
      "/%2E//evil.com",
      "/%2e%2e//evil.com",
      "/a/b/../..//evil.com",
      "/a/%2e%2e//evil.com",
      "/./../.././/evil.com/x?y#z",
      "/.%2f/evil.com",
      "/%2f/evil.com",
      "/%2F%2Fevil.com",
      "/%5c/evil.com",
      "/%5Cevil.com",
      "/./\\evil.com",
      "/a/..\\/evil.com",
      "/.//\tevil.com",
      "/.\r\n//evil.com",
    ]
  ) {
    assert.equal(safeNext(evil), "/app", JSON.stringify(evil));
  }
  // Dot segments that stay on the site are still normalised, not refused.
  assert.equal(safeNext("/app/./history/../columns"), "/app/columns");
  assert.equal(safeNext("/a/../app/history?x=//y"), "/app/history?x=//y");
});

Deno.test("csrfTokenFor() is stable per secret and differs between secrets", () => {
  assert.equal(csrfTokenFor("rt_ses_a"), csrfTokenFor("rt_ses_a"));
  assert.notEqual(csrfTokenFor("rt_ses_a"), csrfTokenFor("rt_ses_b"));
  assert.ok(!csrfTokenFor("rt_ses_a").includes("rt_ses_a"));
});
