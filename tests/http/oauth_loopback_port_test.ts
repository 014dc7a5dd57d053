/**
 * Loopback redirect URIs with a port outside 1–65535 (issue #19 item 7): refused at registration
 * and on the authorization page with a clear error, never redirected to (RFC 6749 §4.1.2.1), and
 * never a 500.
 */

import assert from "node:assert/strict";
import { startServer } from "../_helpers.ts";
import { post } from "./_members.ts";
import { authorizeUrl, newPkce, openConsent, registerClient, signUpMember } from "./_oauth.ts";

const BAD_PORTS = [
  "http://127.0.0.1:99999/cb",
  "http://127.0.0.1:65536/cb",
  "http://127.0.0.1:0/cb",
  "http://localhost:123456/cb",
  "http://[::1]:70000/cb",
];

Deno.test("POST /api/oauth/register", async (t) => {
  await using server = await startServer();

  await t.step("a redirect URI with a port outside 1–65535 is invalid_redirect_uri", async () => {
    for (const uri of [...BAD_PORTS, "https://app.example.com:99999/cb"]) {
      const res = await post(server.url, "/api/oauth/register", { redirect_uris: [uri] });
      assert.equal(res.status, 400, uri);
      assert.equal(res.body.error, "invalid_redirect_uri", uri);
      assert.match(res.body.error_description as string, /port outside 1–65535/, uri);
    }
  });

  await t.step("ports 1 and 65535 are accepted", async () => {
    await registerClient(server.url, ["http://127.0.0.1:1/cb", "http://[::1]:65535/cb"]);
  });
});

Deno.test("GET /api/oauth/authorize", async (t) => {
  await using server = await startServer();
  const alice = await signUpMember(server.url, "alice");
  const clientId = await registerClient(server.url, ["http://127.0.0.1/cb", "http://[::1]/cb"]);
  const open = (redirectUri: string) =>
    openConsent(
      authorizeUrl(server.url, {
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: newPkce().challenge,
      }),
      alice,
    );

  await t.step("a loopback port outside 1–65535 is an error page, never a redirect", async () => {
    for (const uri of BAD_PORTS.filter((u) => !u.includes("localhost"))) {
      const page = await open(uri);
      assert.equal(page.res.status, 400, uri);
      assert.match(page.res.headers.get("content-type")!, /text\/html/);
      assert.equal(page.res.headers.get("location"), null, uri);
      assert.equal(page.token, null, `${uri}: no consent form, so no code can be issued`);
      assert.match(page.html, /The redirect_uri has a port outside 1–65535\./, uri);
    }
  });

  await t.step("an unparsable redirect URI is an error page too", async () => {
    const page = await open("http://127.0.0.1:80a/cb");
    assert.equal(page.res.status, 400);
    assert.equal(page.res.headers.get("location"), null);
    assert.equal(page.token, null);
  });

  await t.step("a loopback port in range still matches (RFC 8252 §7.3)", async () => {
    for (const uri of ["http://127.0.0.1:65535/cb", "http://[::1]:1/cb"]) {
      const page = await open(uri);
      assert.equal(page.res.status, 200, uri);
      assert.ok(page.token, uri);
    }
  });
});
