/**
 * Control characters in client metadata (issue #9 item 8) and Unicode format characters (Cf,
 * issue #19 item 10): refused at registration and in Client ID Metadata Documents with RFC 7591
 * §3.2.2 errors, never matched as a redirect URI, and made visible in names stored before.
 */

import assert from "node:assert/strict";
import { jsonPost, makeApp, startServer } from "../_helpers.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { post } from "./_members.ts";
import { authorizeUrl, newPkce, openConsent, signUpMember } from "./_oauth.ts";

const REDIRECT = "https://app.example.com/cb";

/** One character of each kind that must be refused: C0 (first, tab, newline, last), DEL, C1. */
const CONTROLS = ["\u0000", "\u0001", "\t", "\n", "\r", "\u001f", "\u007f", "\u0085", "\u009f"];

function hex(ch: string): string {
  return "U+" + ch.charCodeAt(0).toString(16).padStart(4, "0");
}

function metadata(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { client_name: "Control Test", redirect_uris: [REDIRECT], ...extra };
}

Deno.test("POST /api/oauth/register", async (t) => {
  await using app = await makeApp();
  const register = async (body: Record<string, unknown>) => {
    const res = await app.request("/api/oauth/register", jsonPost(body));
    return { status: res.status, body: await res.json() };
  };

  await t.step("a control character in a redirect URI is invalid_redirect_uri", async () => {
    for (const ch of CONTROLS) {
      for (const uri of [REDIRECT + ch, `https://app.example.com/c${ch}b`, ch + REDIRECT]) {
        const res = await register(metadata({ redirect_uris: [uri] }));
        assert.equal(res.status, 400, `${hex(ch)} in ${JSON.stringify(uri)}`);
        assert.equal(res.body.error, "invalid_redirect_uri", hex(ch));
      }
    }
  });

  await t.step("a control character in client_name is invalid_client_metadata", async () => {
    for (const ch of CONTROLS) {
      const res = await register(metadata({ client_name: `Good${ch}App` }));
      assert.equal(res.status, 400, hex(ch));
      assert.equal(res.body.error, "invalid_client_metadata", hex(ch));
    }
  });

  await t.step("a control character in any other field is invalid_client_metadata", async () => {
    const cases: Record<string, unknown>[] = [
      { scope: "read\u0000" },
      { grant_types: ["authorization_code\u0000"] },
      { response_types: ["code\u001b"] },
      { token_endpoint_auth_method: "none\u0000" },
      { logo_uri: "https://app.example.com/logo.png\u0000" },
      { contacts: ["ops@app.example.com\u0007"] },
      { software_statement: { nested: "x\u0085" } },
      { "tos\u0000uri": "https://app.example.com/tos" },
    ];
    for (const extra of cases) {
      const res = await register(metadata(extra));
      assert.equal(res.status, 400, JSON.stringify(extra));
      assert.equal(res.body.error, "invalid_client_metadata", JSON.stringify(extra));
    }
  });

  await t.step("form-encoded metadata is checked the same way", async () => {
    const res = await app.request("/api/oauth/register", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_name: "Bell\u0007App" }).toString(),
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, "invalid_client_metadata");
  });

  await t.step("printable Unicode names and URIs are still accepted", async () => {
    const res = await register(metadata({ client_name: "Café Ünïcode 日記 ✓" }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.client_name, "Café Ünïcode 日記 ✓");
    assert.deepEqual(res.body.redirect_uris, [REDIRECT]);
  });
});

Deno.test("GET /api/oauth/authorize", async (t) => {
  const documentUrl = "https://client.example.com/oauth/metadata.json";
  let document: Record<string, unknown> = {};
  await using app = await makeApp({ clientMetadataFetcher: () => Promise.resolve(document) });
  const reg = await app.request("/api/oauth/register", jsonPost(metadata()));
  assert.equal(reg.status, 201);
  const clientId = (await reg.json()).client_id as string;

  const authorize = (params: Record<string, string>) => {
    const url = new URL("http://localhost:8000/api/oauth/authorize");
    const all = {
      response_type: "code",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      scope: "read",
      state: "s1",
      ...params,
    };
    for (const [k, v] of Object.entries(all)) url.searchParams.set(k, v);
    return app.request(url.pathname + url.search, { redirect: "manual" });
  };

  await t.step(
    "a redirect URI with a control character never matches a registered one",
    async () => {
      for (const ch of CONTROLS) {
        const res = await authorize({ client_id: clientId, redirect_uri: REDIRECT + ch });
        const html = await res.text();
        // RFC 6749 §4.1.2.1: an unmatched redirect URI gets the error page, never a redirect.
        assert.equal(res.status, 400, hex(ch));
        assert.equal(res.headers.get("location"), null, hex(ch));
        assert.match(html, /redirect_uri/i, hex(ch));
      }
      const ok = await authorize({ client_id: clientId, redirect_uri: REDIRECT });
      await ok.body?.cancel();
      assert.equal(ok.status, 200, "the registered URI itself still works");
    },
  );

  await t.step("a client_id with a control character is an unknown client", async () => {
    const res = await authorize({ client_id: clientId + "\u0000", redirect_uri: REDIRECT });
    await res.body?.cancel();
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("location"), null);
  });

  await t.step("a Client ID Metadata Document with a control character is refused", async () => {
    for (
      const bad of [
        { redirect_uris: [REDIRECT + "\u0000"] },
        { client_name: "Doc\u001bApp" },
        { logo_uri: "https://client.example.com/l.png\u007f" },
      ]
    ) {
      document = {
        client_id: documentUrl,
        client_name: "Doc App",
        redirect_uris: [REDIRECT],
        ...bad,
      };
      const res = await authorize({ client_id: documentUrl, redirect_uri: REDIRECT });
      const html = await res.text();
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.equal(res.headers.get("location"), null);
      assert.match(html, /control character/, JSON.stringify(bad));
    }
  });
});

/** Invisible format characters (Unicode Cf): bidi override and isolate, zero-width, BOM, soft hyphen. */
const FORMATS = ["\u202e", "\u202d", "\u2066", "\u200b", "\u200d", "\ufeff", "\u00ad", "\u061c"];

Deno.test("OAuth client names: Unicode format characters (Cf)", async (t) => {
  const documentUrl = "https://client.example.com/oauth/metadata.json";
  let document: Record<string, unknown> = {};
  await using server = await startServer({
    clientMetadataFetcher: () => Promise.resolve(document),
  });
  const alice = await signUpMember(server.url, "alice");

  await t.step("registration refuses them in any field (RFC 7591 §3.2.2)", async () => {
    for (const ch of FORMATS) {
      for (
        const extra of [{ client_name: `Good${ch}App` }, { client_uri: `https://a.example/${ch}` }]
      ) {
        const res = await post(server.url, "/api/oauth/register", metadata(extra));
        assert.equal(res.status, 400, `${hex(ch)} ${JSON.stringify(extra)}`);
        assert.equal(res.body.error, "invalid_client_metadata", hex(ch));
        assert.match(res.body.error_description as string, /Unicode category Cf/, hex(ch));
      }
      const uri = await post(server.url, "/api/oauth/register", {
        redirect_uris: [`https://app.example.com/c${ch}b`],
      });
      assert.equal(uri.body.error, "invalid_redirect_uri", hex(ch));
    }
  });

  await t.step("a Client ID Metadata Document with one is refused", async () => {
    document = { client_id: documentUrl, client_name: "Doc\u202eppA", redirect_uris: [REDIRECT] };
    const page = await openConsent(
      authorizeUrl(server.url, {
        client_id: documentUrl,
        redirect_uri: REDIRECT,
        code_challenge: newPkce().challenge,
      }),
      alice,
    );
    assert.equal(page.res.status, 400);
    assert.match(page.html, /Unicode category Cf/);
  });

  await t.step("a name stored before the rule is shown with each one made visible", async () => {
    const clientId = "rtc_legacyformatname";
    await server.kv.set(keys.oauthClient(clientId), {
      clientId,
      clientName: "Safe\u202eexe.gnp\u200b",
      redirectUris: [REDIRECT],
      grantTypes: ["authorization_code"],
      clientIdIssuedAt: 0,
      source: "registration",
    });
    const href = authorizeUrl(server.url, {
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: newPkce().challenge,
    });
    const consent = await openConsent(href, alice);
    assert.equal(consent.res.status, 200);
    const signIn = await fetch(href);
    for (const html of [consent.html, await signIn.text()]) {
      assert.doesNotMatch(html, /\p{Cf}/u);
      assert.match(html, /Safe\[U\+202E\]exe\.gnp\[U\+200B\]/);
    }
  });
});
