/**
 * Open registration cannot fill the disk (issue #19 item 5): a client that never completes an
 * authorization expires after 24 hours, one with a grant is kept, and valid registrations have
 * their own quota per address (RFC 7591 §5: the server may limit and expire registrations).
 */

import assert from "node:assert/strict";
import { jsonPost, makeApp, startServer } from "../_helpers.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import {
  authorizeUrl,
  grantTokensFor,
  newPkce,
  openConsent,
  registerClient,
  signUpMember,
  tokenRequest,
} from "./_oauth.ts";

const REDIRECT = "https://app.example.com/cb";
/** The documented lifetime of a client that never completes an authorization. */
const UNUSED_CLIENT_TTL_MS = 24 * 60 * 60 * 1000;

Deno.test("OAuth client lifetime: unused clients expire, granted ones stay", async (t) => {
  await using server = await startServer();
  const base = server.url;
  const alice = await signUpMember(base, "alice");
  const consentFor = async (clientId: string) =>
    await openConsent(
      authorizeUrl(base, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: newPkce().challenge,
      }),
      alice,
    );

  await t.step("a client with no grant is unknown 24 hours after registration", async () => {
    const clientId = await registerClient(base, [REDIRECT]);
    server.clock.advance(UNUSED_CLIENT_TTL_MS - 1000);
    assert.equal((await consentFor(clientId)).res.status, 200, "still usable before 24 h");
    server.clock.advance(2000);
    const page = await consentFor(clientId);
    assert.equal(page.res.status, 400);
    assert.match(page.html, /not registered with Routine Tracker/);
    const token = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: "rt_rt_x",
      client_id: clientId,
    });
    assert.equal(token.status, 401);
    assert.equal(token.body.error, "invalid_client");
  });

  await t.step("a client whose first grant completed is kept past 24 hours", async () => {
    const clientId = await registerClient(base, [REDIRECT]);
    const tokens = await grantTokensFor(base, { member: alice, clientId, redirectUri: REDIRECT });
    const stored = await server.kv.get<Record<string, unknown>>(keys.oauthClient(clientId));
    assert.equal("expiresAt" in stored.value!, false, "the grant's commit removed the expiry");
    server.clock.advance(UNUSED_CLIENT_TTL_MS * 3);
    assert.equal((await consentFor(clientId)).res.status, 200);
    const refreshed = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  });
});

Deno.test("POST /api/oauth/register", async (t) => {
  await using app = await makeApp({ config: { trustProxy: true } });
  const register = async (address: string, body: Record<string, unknown>) => {
    const res = await app.request(
      "/api/oauth/register",
      jsonPost(body, { "X-Forwarded-For": address }),
    );
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  const valid = { client_name: "Quota Test", redirect_uris: [REDIRECT] };

  await t.step("an address may register 10 clients an hour, then gets 429", async () => {
    for (let i = 0; i < 10; i++) {
      assert.equal((await register("203.0.113.7", valid)).status, 201, `registration ${i + 1}`);
    }
    const refused = await register("203.0.113.7", valid);
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get("content-type")!, /application\/json/);
    assert.equal(refused.headers.get("cache-control"), "no-store");
    const retryAfter = Number(refused.headers.get("retry-after"));
    // The sliding window (two-window estimate) frees a request within two windows.
    assert.ok(retryAfter >= 1 && retryAfter <= 2 * 3600, `Retry-After ${retryAfter}`);
    // RFC 7591 §3.2.2 shape, as every error of this endpoint.
    assert.equal(refused.body.error, "temporarily_unavailable");
    assert.match(
      refused.body.error_description,
      /"oauth-register" exceeded: 10 requests per 3600 s/,
    );
  });

  await t.step("malformed metadata is still answered with its own error", async () => {
    const res = await register("203.0.113.7", { redirect_uris: ["http://example.com/cb"] });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, "invalid_redirect_uri");
  });

  await t.step("another address has its own quota", async () => {
    assert.equal((await register("198.51.100.9", valid)).status, 201);
  });

  await t.step("the quota frees up after an hour", async () => {
    app.clock.advance(2 * 3600 * 1000);
    assert.equal((await register("203.0.113.7", valid)).status, 201);
  });
});
