import assert from "node:assert/strict";
import { redirectUriMatches, redirectUriProblem } from "./redirect_uri.ts";

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
