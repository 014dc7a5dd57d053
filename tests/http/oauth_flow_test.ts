/**
 * Route B end to end with a strict OAuth client (`oauth4webapi`): discovery → registration →
 * authorization (the member approves the consent form) → code exchange → refresh → MCP
 * `tools/call`. No protocol check is relaxed: `allowInsecureRequests` only lets the client speak
 * http to this loopback test server (oauth4webapi refuses non-https URLs by default); it is a
 * transport allowance, not a relaxed issuer, state, iss, PKCE or token-response check.
 */

import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { startServer } from "../_helpers.ts";
import { approve, seedMood, signUpMember } from "./_oauth.ts";

const http = { [oauth.allowInsecureRequests]: true } as const;

Deno.test("oauth4webapi: discovery → registration → consent → code → refresh → tools/call", async (t) => {
  await using server = await startServer();
  const base = server.url;
  const member = await signUpMember(base, "alice");
  await seedMood(base, member, 4);
  const resourceUrl = new URL(`${base}/api/mcp`);

  // RFC 9728: the MCP endpoint's 401 names its metadata, whose `resource` is the endpoint itself.
  let rs!: oauth.ResourceServer;
  await t.step("protected-resource metadata validates (RFC 9728 §3.3)", async () => {
    const res = await oauth.resourceDiscoveryRequest(resourceUrl, http);
    rs = await oauth.processResourceDiscoveryResponse(resourceUrl, res);
    assert.deepEqual(rs.authorization_servers, [base]);
    assert.deepEqual(rs.scopes_supported, ["read"]);
  });

  let as!: oauth.AuthorizationServer;
  await t.step(
    "authorization-server metadata validates, issuer exact (RFC 8414 §3.3)",
    async () => {
      const issuer = new URL(rs.authorization_servers![0]);
      as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...http }),
      );
      assert.equal(as.issuer, base);
      assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
      assert.equal(as.authorization_response_iss_parameter_supported, true);
    },
  );

  const redirectUri = "http://127.0.0.1:33333/callback";
  let client!: oauth.Client;
  await t.step("dynamic client registration (RFC 7591)", async () => {
    const res = await oauth.dynamicClientRegistrationRequest(as, {
      client_name: "oauth4webapi test client",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }, http);
    client = await oauth.processDynamicClientRegistrationResponse(res);
    assert.equal(client.token_endpoint_auth_method, "none");
    assert.equal(client.scope, "read");
  });

  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  let callback!: URL;
  await t.step("authorization: the member approves the consent form", async () => {
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set("client_id", client.client_id);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("scope", "read");
    url.searchParams.set("state", state);
    url.searchParams.set("resource", resourceUrl.href);
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set("code_challenge_method", "S256");
    callback = await approve(base, url.href, member);
    assert.equal(callback.origin + callback.pathname, redirectUri);
  });

  let tokens!: oauth.TokenEndpointResponse;
  await t.step(
    "code exchange: iss and state validated (RFC 9207), PKCE verifier sent",
    async () => {
      // validateAuthResponse checks `iss` against the issuer because the AS advertises it, and state.
      const params = oauth.validateAuthResponse(as, client, callback, state);
      const res = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        redirectUri,
        verifier,
        {
          additionalParameters: { resource: resourceUrl.href },
          ...http,
        },
      );
      assert.equal(res.headers.get("cache-control"), "no-store");
      tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
      assert.equal(tokens.token_type, "bearer");
      assert.equal(tokens.expires_in, 3600);
      assert.equal(tokens.scope, "read");
      assert.match(tokens.access_token, /^rt_at_/);
      assert.match(tokens.refresh_token!, /^rt_rt_/);
    },
  );

  await t.step("refresh rotates the refresh token", async () => {
    const res = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      tokens.refresh_token!,
      {
        additionalParameters: { resource: resourceUrl.href },
        ...http,
      },
    );
    const refreshed = await oauth.processRefreshTokenResponse(as, client, res);
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    assert.notEqual(refreshed.access_token, tokens.access_token);
    tokens = refreshed;
  });

  await t.step("tools/call with the access token returns the member's own data", async () => {
    const res = await oauth.protectedResourceRequest(
      tokens.access_token,
      "POST",
      resourceUrl,
      new Headers({ "Content-Type": "application/json", Accept: "application/json" }),
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "list_columns", arguments: {} },
      }),
      http,
    );
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.notEqual(body.result.isError, true);
    const columns = body.result.structuredContent.columns as { key: string }[];
    assert.deepEqual(columns.map((c) => c.key), ["mood"]);
  });
});
