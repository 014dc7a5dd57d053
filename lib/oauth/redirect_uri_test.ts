import assert from "node:assert/strict";
import { findRedirectUri, redirectUriMatches, redirectUriProblem } from "./redirect_uri.ts";

Deno.test("redirectUriProblem() allows https, loopback http and private schemes only", () => {
  for (
    const ok of [
      "https://a.example/cb",
      "http://127.0.0.1:8080/cb",
      "http://[::1]/cb",
      "http://localhost:3000/cb",
      "cursor://anysphere.cursor-mcp/oauth",
      "vscode://callback",
    ]
  ) {
    assert.equal(redirectUriProblem(ok), null, ok);
  }
  for (
    const bad of [
      "http://a.example/cb",
      "https://a.example/cb#x",
      "javascript:alert(1)",
      "file:///etc/passwd",
      "data:,x",
      "cb",
      "https://u:p@a.example/cb",
      "",
    ]
  ) {
    assert.notEqual(redirectUriProblem(bad), null, bad);
  }
});

Deno.test("redirectUriMatches() is exact except for the loopback port (OAuth 2.1 §4.1.1, §8.4.2)", () => {
  assert.ok(redirectUriMatches("https://a.example/cb", "https://a.example/cb"));
  assert.ok(!redirectUriMatches("https://a.example/cb", "https://a.example/cb/"));
  assert.ok(!redirectUriMatches("https://a.example/cb", "https://A.example/cb"));
  assert.ok(!redirectUriMatches("https://a.example/cb", "https://a.example/cb?x=1"));
  assert.ok(redirectUriMatches("http://127.0.0.1/cb", "http://127.0.0.1:51234/cb"));
  assert.ok(redirectUriMatches("http://127.0.0.1:1/cb", "http://127.0.0.1:2/cb"));
  assert.ok(!redirectUriMatches("http://127.0.0.1/cb", "http://localhost:51234/cb"));
  assert.ok(!redirectUriMatches("http://127.0.0.1/cb", "http://127.0.0.1:51234/cb2"));
  assert.ok(!redirectUriMatches("http://127.0.0.1/cb", "http://127.0.0.1.evil.example/cb"));
  assert.ok(!redirectUriMatches("https://127.0.0.1/cb", "https://127.0.0.1:444/cb"));
});

Deno.test("findRedirectUri() never matches a URI holding a control character", () => {
  // A registration made before control characters were refused must not match either.
  const legacy = ["https://a.example/cb\u0000", "http://127.0.0.1/cb\u0000"];
  assert.equal(findRedirectUri(legacy, "https://a.example/cb\u0000"), null);
  assert.equal(findRedirectUri(legacy, "http://127.0.0.1:5000/cb\u0000"), null);
  assert.equal(
    findRedirectUri(["https://a.example/cb"], "https://a.example/cb"),
    "https://a.example/cb",
  );
  for (const ch of ["\u0000", "\u0009", "\u001f", "\u007f", "\u0085"]) {
    assert.notEqual(
      redirectUriProblem(`https://a.example/cb${ch}`),
      null,
      ch.charCodeAt(0).toString(),
    );
  }
});

Deno.test("findRedirectUri() never matches a loopback port outside 1–65535", () => {
  const registered = ["http://127.0.0.1/cb", "http://[::1]:8976/cb"];
  for (
    const uri of ["http://127.0.0.1:99999/cb", "http://127.0.0.1:0/cb", "http://[::1]:65536/cb"]
  ) {
    assert.equal(findRedirectUri(registered, uri), null, uri);
    assert.match(redirectUriProblem(uri)!, /port outside 1–65535/, uri);
  }
  assert.equal(findRedirectUri(registered, "http://127.0.0.1:65535/cb"), "http://127.0.0.1/cb");
});
