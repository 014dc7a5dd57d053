/** Route B discovery (RFC 9728, RFC 8414), registration (RFC 7591) and CIMD over real HTTP. */

import assert from "node:assert/strict";
import { startServer } from "../_helpers.ts";
import { post } from "./_members.ts";
import { approve, authorizeUrl, newPkce, signUpMember, tokenRequest } from "./_oauth.ts";
import type { ClientMetadataFetcher } from "../../lib/oauth/client_metadata_document.ts";

Deno.test("OAuth: discovery documents", async (t) => {
  await using server = await startServer();
  const base = server.url;

  await t.step(
    "the 401 from /api/mcp points at the path-inserted PRM, whose resource is that URL (RFC 9728 §3.3, §5.1)",
    async () => {
      for (const path of ["/api/mcp", "/api/v1/mcp"]) {
        const res = await post(base, path, {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "list_columns", arguments: {} },
        });
        assert.equal(res.status, 401);
        const metadataUrl =
          /resource_metadata="([^"]+)"/.exec(res.headers.get("www-authenticate")!)![1];
        assert.equal(metadataUrl, `${base}/.well-known/oauth-protected-resource${path}`);
        const prm = await (await fetch(metadataUrl)).json();
        assert.deepEqual(prm, {
          resource: base + path,
          authorization_servers: [base],
          scopes_supported: ["read"],
          bearer_methods_supported: ["header"],
          resource_name: "Routine Tracker MCP",
          resource_documentation: `${base}/docs/mcp`,
        });
      }
    },
  );

  await t.step("the root PRM names /api/mcp; other paths are 404", async () => {
    const root = await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json();
    assert.equal(root.resource, `${base}/api/mcp`);
    const other = await fetch(`${base}/.well-known/oauth-protected-resource/api/proxy`);
    await other.body?.cancel();
    assert.equal(other.status, 404);
  });

  await t.step("AS metadata lists every field a strict client needs (RFC 8414 §2)", async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /application\/json/);
    const m = await res.json();
    assert.equal(m.issuer, base);
    assert.equal(m.authorization_endpoint, `${base}/api/oauth/authorize`);
    assert.equal(m.token_endpoint, `${base}/api/oauth/token`);
    assert.equal(m.registration_endpoint, `${base}/api/oauth/register`);
    assert.deepEqual(m.response_types_supported, ["code"]);
    assert.deepEqual(m.response_modes_supported, ["query"]);
    assert.deepEqual(m.grant_types_supported, ["authorization_code", "refresh_token"]);
    assert.deepEqual(m.token_endpoint_auth_methods_supported, ["none"]);
    assert.deepEqual(m.code_challenge_methods_supported, ["S256"]);
    assert.deepEqual(m.scopes_supported, ["read"]);
    assert.equal(m.authorization_response_iss_parameter_supported, true);
    assert.equal(m.client_id_metadata_document_supported, true);
  });
});

Deno.test("POST /api/oauth/register (RFC 7591)", async (t) => {
  await using server = await startServer();
  const base = server.url;
  const register = (body: Record<string, unknown>) =>
    post(base, "/api/oauth/register", {
      client_name: "App",
      grant_types: ["authorization_code", "refresh_token"],
      ...body,
    });

  await t.step(
    "201 with client_id, client_id_issued_at, none, read and the echoed metadata",
    async () => {
      const res = await register({
        redirect_uris: [
          "https://app.example.com/cb",
          "cursor://anysphere.cursor-mcp/oauth/callback",
          "http://127.0.0.1/cb",
        ],
      });
      assert.equal(res.status, 201);
      assert.match(res.body.client_id as string, /^rtc_/);
      assert.equal(typeof res.body.client_id_issued_at, "number");
      assert.equal(res.body.token_endpoint_auth_method, "none");
      assert.equal(res.body.scope, "read");
      assert.equal(res.body.client_name, "App");
      assert.deepEqual(res.body.response_types, ["code"]);
      assert.deepEqual(res.body.grant_types, ["authorization_code", "refresh_token"]);
      assert.equal(res.body.client_secret, undefined);
      assert.equal(res.headers.get("cache-control"), "no-store");
    },
  );

  await t.step("an omitted auth method becomes none; a secret-based one is refused", async () => {
    const omitted = await register({ redirect_uris: ["https://app.example.com/cb"] });
    assert.equal(omitted.body.token_endpoint_auth_method, "none");
    const secret = await register({
      redirect_uris: ["https://app.example.com/cb"],
      token_endpoint_auth_method: "client_secret_basic",
    });
    assert.equal(secret.status, 400);
    assert.equal(secret.body.error, "invalid_client_metadata");
    assert.equal(secret.body.code, "invalid_client_metadata");
    assert.equal(typeof secret.body.error_description, "string");
    assert.equal(typeof secret.body.requestId, "string");
  });

  await t.step("bad redirect URIs are invalid_redirect_uri (RFC 7591 §3.2.2)", async () => {
    for (
      const uri of [
        "http://app.example.com/cb",
        "https://app.example.com/cb#frag",
        "javascript:alert(1)",
        "data:text/html,hi",
        "/relative/cb",
        "https://user:pw@app.example.com/cb",
      ]
    ) {
      const res = await register({ redirect_uris: [uri] });
      assert.equal(res.status, 400, uri);
      assert.equal(res.body.error, "invalid_redirect_uri", uri);
    }
    const none = await register({ redirect_uris: [] });
    assert.equal(none.body.error, "invalid_redirect_uri");
  });

  await t.step("unsupported grant or response types are invalid_client_metadata", async () => {
    assert.equal(
      (await register({
        redirect_uris: ["https://a.example/cb"],
        grant_types: ["client_credentials"],
      })).body.error,
      "invalid_client_metadata",
    );
    assert.equal(
      (await register({ redirect_uris: ["https://a.example/cb"], response_types: ["token"] })).body
        .error,
      "invalid_client_metadata",
    );
    assert.equal(
      (await register({ redirect_uris: ["https://a.example/cb"], scope: "admin" })).body.error,
      "invalid_client_metadata",
    );
  });

  await t.step("malformed bodies get an OAuth error, never a 500", async () => {
    const res = await post(base, "/api/oauth/register", "{not json");
    assert.equal(res.status, 400);
    assert.equal(res.body.error, "invalid_request");
    const arr = await post(base, "/api/oauth/register", []);
    assert.equal(arr.status, 400);
  });

  await t.step("a token request with garbage gets RFC errors", async () => {
    assert.equal((await tokenRequest(base, {})).body.error, "invalid_request");
    assert.equal(
      (await tokenRequest(base, { grant_type: "password", client_id: "x" })).body.error,
      "unsupported_grant_type",
    );
    assert.equal(
      (await tokenRequest(base, {
        grant_type: "authorization_code",
        client_id: "rtc_nope",
        code: "x",
        code_verifier: "y",
      })).body.error,
      "invalid_client",
    );
    const json = await post(base, "/api/oauth/token", {
      grant_type: "refresh_token",
      client_id: "rtc_nope",
      refresh_token: "x",
    });
    assert.equal(json.body.error, "invalid_client");
  });
});

Deno.test("OAuth: Client ID Metadata Documents (injected fetcher; the real fetch path has its own unit tests)", async (t) => {
  const CLIENT_URL = "https://app.example.com/oauth/client.json";
  const documents = new Map<string, unknown>([
    [CLIENT_URL, {
      client_id: CLIENT_URL,
      client_name: "Metadata App",
      redirect_uris: ["http://127.0.0.1:4567/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    }],
    ["https://app.example.com/oauth/liar.json", {
      client_id: "https://other.example.com/oauth/client.json",
      redirect_uris: ["http://127.0.0.1:4567/callback"],
    }],
  ]);
  const fetched: string[] = [];
  const fetcher: ClientMetadataFetcher = (url) => {
    fetched.push(url.href);
    const doc = documents.get(url.href);
    return doc ? Promise.resolve(doc) : Promise.reject(new Error("404"));
  };
  await using server = await startServer({ clientMetadataFetcher: fetcher });
  const base = server.url;
  const alice = await signUpMember(base, "alice");

  await t.step("an https client_id URL is resolved and the full flow works", async () => {
    const pkce = newPkce();
    const redirect = "http://127.0.0.1:5555/callback"; // any loopback port (OAuth 2.1 §8.4.2)
    const back = await approve(
      base,
      authorizeUrl(base, {
        client_id: CLIENT_URL,
        redirect_uri: redirect,
        code_challenge: pkce.challenge,
      }),
      alice,
    );
    const res = await tokenRequest(base, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      code_verifier: pkce.verifier,
      client_id: CLIENT_URL,
      redirect_uri: redirect,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(fetched.includes(CLIENT_URL));
  });

  await t.step(
    "a document whose client_id differs from its URL is refused (CIMD §4.1)",
    async () => {
      const res = await fetch(
        authorizeUrl(base, {
          client_id: "https://app.example.com/oauth/liar.json",
          redirect_uri: "http://127.0.0.1:4567/callback",
          code_challenge: newPkce().challenge,
        }),
        { headers: { cookie: alice.cookie }, redirect: "manual" },
      );
      assert.equal(res.status, 400);
      assert.match(await res.text(), /does not equal its URL/);
    },
  );

  await t.step("a client_id URL without a path or over http is refused", async () => {
    for (const bad of ["https://app.example.com/", "https://app.example.com/a#b"]) {
      const res = await fetch(
        authorizeUrl(base, {
          client_id: bad,
          redirect_uri: "http://127.0.0.1:4567/callback",
          code_challenge: newPkce().challenge,
        }),
        { redirect: "manual" },
      );
      await res.body?.cancel();
      assert.equal(res.status, 400, bad);
    }
  });
});
