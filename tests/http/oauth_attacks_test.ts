/**
 * The attack battery of Route B (issue #4): each step is one attack, named after the rule that
 * stops it. Real server, real HTTP, the member's browser played with its session cookie.
 */

import assert from "node:assert/strict";
import { startServer } from "../_helpers.ts";
import { post } from "./_members.ts";
import {
  approve,
  authorizeUrl,
  callTool,
  codeFor,
  grantTokensFor,
  newPkce,
  openConsent,
  registerClient,
  seedMood,
  signUpMember,
  submitConsent,
  tokenRequest,
} from "./_oauth.ts";

const REDIRECT = "https://app.example.com/cb";

/** Asserts an authorization error went back to the client with error, state and iss (RFC 9207). */
async function assertRedirectedError(
  href: string,
  member: { cookie: string },
  error: string,
  issuer: string,
) {
  const state = new URL(href).searchParams.get("state");
  const res = await fetch(href, { headers: { cookie: member.cookie }, redirect: "manual" });
  await res.body?.cancel();
  assert.equal(res.status, 302, `expected a redirect for ${error}`);
  const back = new URL(res.headers.get("location")!);
  assert.equal(back.origin + back.pathname, REDIRECT);
  assert.equal(back.searchParams.get("error"), error);
  assert.equal(back.searchParams.get("state"), state);
  assert.equal(back.searchParams.get("iss"), issuer);
  assert.equal(back.searchParams.get("code"), null);
}

/** Asserts the request is answered with an error page and never redirected. */
async function assertErrorPage(href: string, member: { cookie: string }) {
  const res = await fetch(href, { headers: { cookie: member.cookie }, redirect: "manual" });
  const html = await res.text();
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("location"), null);
  assert.match(res.headers.get("content-type")!, /text\/html/);
  assert.doesNotMatch(html, /rt_ct_/);
}

Deno.test("OAuth: attack battery", async (t) => {
  await using server = await startServer();
  const base = server.url;
  const alice = await signUpMember(base, "alice");
  const mallory = await signUpMember(base, "mallory");
  await seedMood(base, alice);
  const clientId = await registerClient(base, [REDIRECT]);
  const otherClient = await registerClient(base, ["https://evil.example.net/cb"]);
  const resource = `${base}/api/mcp`;

  /** A full, legitimate grant for alice: code → tokens. */
  function grant() {
    return grantTokensFor(base, { member: alice, clientId, redirectUri: REDIRECT, resource });
  }

  await t.step(
    "missing code_challenge is refused (OAuth 2.1 §4.1.1, RFC 7636 §4.4.1)",
    async () => {
      await assertRedirectedError(
        authorizeUrl(base, {
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: undefined,
          code_challenge_method: undefined,
        }),
        alice,
        "invalid_request",
        base,
      );
    },
  );

  await t.step("plain PKCE is refused (OAuth 2.1 §4.1.1)", async () => {
    const { verifier } = newPkce();
    await assertRedirectedError(
      authorizeUrl(base, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: verifier,
        code_challenge_method: "plain",
      }),
      alice,
      "invalid_request",
      base,
    );
  });

  await t.step(
    "a missing code_challenge_method (= plain) is refused (OAuth 2.1 §4.1.1, C10)",
    async () => {
      await assertRedirectedError(
        authorizeUrl(base, {
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: newPkce().challenge,
          code_challenge_method: undefined,
        }),
        alice,
        "invalid_request",
        base,
      );
    },
  );

  await t.step("a wrong code_verifier gets invalid_grant (RFC 7636 §4.6)", async () => {
    const pkce = newPkce();
    const code = await codeFor(base, alice, clientId, REDIRECT, pkce.challenge);
    const res = await tokenRequest(base, {
      grant_type: "authorization_code",
      code,
      code_verifier: newPkce().verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, "invalid_grant");
    assert.equal(res.body.code, "invalid_grant");
    assert.equal(typeof res.body.error_description, "string");
    assert.equal(res.body.requestId, res.headers.get("x-request-id"));
    assert.equal(res.headers.get("cache-control"), "no-store");
  });

  await t.step(
    "redirect URI mismatch, prefix and case tricks: error page, never a redirect (OAuth 2.1 §4.1.1)",
    async () => {
      for (
        const tricky of [
          "https://app.example.com/cb/../evil",
          "https://app.example.com/cb/extra",
          "https://app.example.com/cbx",
          "https://APP.example.com/cb",
          "https://app.example.com/CB",
          "https://app.example.com/cb?next=https://evil.example.net",
          "https://app.example.com.evil.example.net/cb",
          "http://app.example.com/cb",
          "https://app.example.com:443/cb",
        ]
      ) {
        await assertErrorPage(
          authorizeUrl(base, {
            client_id: clientId,
            redirect_uri: tricky,
            code_challenge: newPkce().challenge,
          }),
          alice,
        );
      }
    },
  );

  await t.step(
    "a redirect_uri at the token endpoint differing from the request gets invalid_grant",
    async () => {
      const pkce = newPkce();
      const code = await codeFor(base, alice, clientId, REDIRECT, pkce.challenge);
      const res = await tokenRequest(base, {
        grant_type: "authorization_code",
        code,
        code_verifier: pkce.verifier,
        client_id: clientId,
        redirect_uri: REDIRECT + "/",
      });
      assert.equal(res.body.error, "invalid_grant");
    },
  );

  await t.step(
    "an unknown client is shown an error page, not redirected (RFC 6749 §4.1.2.1)",
    async () => {
      await assertErrorPage(
        authorizeUrl(base, {
          client_id: "rtc_unknown",
          redirect_uri: REDIRECT,
          code_challenge: newPkce().challenge,
        }),
        alice,
      );
    },
  );

  await t.step(
    "code replay is refused and revokes the grant's tokens (RFC 6749 §4.1.2, §10.5)",
    async () => {
      const pkce = newPkce();
      const code = await codeFor(base, alice, clientId, REDIRECT, pkce.challenge);
      const params = {
        grant_type: "authorization_code",
        code,
        code_verifier: pkce.verifier,
        client_id: clientId,
        redirect_uri: REDIRECT,
      };
      const first = await tokenRequest(base, params);
      assert.equal(first.status, 200);
      assert.equal((await callTool(base, first.body.access_token as string)).status, 200);
      const replay = await tokenRequest(base, params);
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error, "invalid_grant");
      const after = await callTool(base, first.body.access_token as string);
      assert.equal(after.status, 401);
      assert.match(after.headers.get("www-authenticate")!, /error="invalid_token"/);
      const refresh = await tokenRequest(base, {
        grant_type: "refresh_token",
        refresh_token: first.body.refresh_token as string,
        client_id: clientId,
      });
      assert.equal(refresh.body.error, "invalid_grant");
    },
  );

  await t.step(
    "a code presented by another client is refused and not burned (RFC 6749 §4.1.3)",
    async () => {
      const pkce = newPkce();
      const code = await codeFor(base, alice, clientId, REDIRECT, pkce.challenge);
      const stolen = await tokenRequest(base, {
        grant_type: "authorization_code",
        code,
        code_verifier: pkce.verifier,
        client_id: otherClient,
        redirect_uri: REDIRECT,
      });
      assert.equal(stolen.status, 400);
      assert.equal(stolen.body.error, "invalid_grant");
      const legit = await tokenRequest(base, {
        grant_type: "authorization_code",
        code,
        code_verifier: pkce.verifier,
        client_id: clientId,
        redirect_uri: REDIRECT,
      });
      assert.equal(legit.status, 200);
    },
  );

  await t.step(
    "an expired code (past 5 minutes, manual clock) gets invalid_grant (OAuth 2.1 §4.1.2)",
    async () => {
      const pkce = newPkce();
      const code = await codeFor(base, alice, clientId, REDIRECT, pkce.challenge);
      server.clock.advance(5 * 60 * 1000 + 1);
      const res = await tokenRequest(base, {
        grant_type: "authorization_code",
        code,
        code_verifier: pkce.verifier,
        client_id: clientId,
        redirect_uri: REDIRECT,
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, "invalid_grant");
    },
  );

  await t.step("refresh-token reuse revokes the whole grant (OAuth 2.1 §4.3.1)", async () => {
    const tokens = await grant();
    const rotated = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    assert.equal(rotated.status, 200);
    const reuse = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    assert.equal(reuse.status, 400);
    assert.equal(reuse.body.error, "invalid_grant");
    // The thief's or the victim's newest tokens: both dead now.
    assert.equal((await callTool(base, rotated.body.access_token as string)).status, 401);
    const newest = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: rotated.body.refresh_token as string,
      client_id: clientId,
    });
    assert.equal(newest.body.error, "invalid_grant");
  });

  await t.step(
    "a refresh token presented by another client is refused (OAuth 2.1 §4.3.1)",
    async () => {
      const tokens = await grant();
      const res = await tokenRequest(base, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: otherClient,
      });
      assert.equal(res.body.error, "invalid_grant");
    },
  );

  await t.step(
    "a wrong resource is invalid_target at authorize and token (RFC 8707 §2)",
    async () => {
      await assertRedirectedError(
        authorizeUrl(base, {
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: newPkce().challenge,
          resource: "https://evil.example.net/api/mcp",
        }),
        alice,
        "invalid_target",
        base,
      );
      await assertRedirectedError(
        authorizeUrl(base, {
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: newPkce().challenge,
          resource: `${base}/api/proxy`,
        }),
        alice,
        "invalid_target",
        base,
      );
      const pkce = newPkce();
      const code = await codeFor(base, alice, clientId, REDIRECT, pkce.challenge);
      const res = await tokenRequest(base, {
        grant_type: "authorization_code",
        code,
        code_verifier: pkce.verifier,
        client_id: clientId,
        redirect_uri: REDIRECT,
        resource: "https://evil.example.net/api/mcp",
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, "invalid_target");
    },
  );

  await t.step("an unknown scope is invalid_scope (RFC 6749 §4.1.2.1)", async () => {
    await assertRedirectedError(
      authorizeUrl(base, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: newPkce().challenge,
        scope: "read write",
      }),
      alice,
      "invalid_scope",
      base,
    );
  });

  await t.step(
    "consent POST without, with a forged, or with another session's token gets no code (CSRF)",
    async () => {
      const href = authorizeUrl(base, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: newPkce().challenge,
      });
      const missing = await submitConsent(base, href, alice, { action: "approve" });
      assert.equal(missing.status, 400);
      assert.equal(missing.headers.get("location"), null);
      const forged = await submitConsent(base, href, alice, {
        action: "approve",
        consent_token: "rt_ct_" + "A".repeat(43),
      });
      assert.equal(forged.status, 403);
      // Mallory's own consent token cannot approve on alice's session, nor alice's on mallory's.
      const malloryPage = await openConsent(href, mallory);
      const crossed = await submitConsent(base, href, alice, {
        action: "approve",
        consent_token: malloryPage.token!,
      });
      assert.equal(crossed.status, 403);
      assert.equal(crossed.headers.get("location"), null);
    },
  );

  await t.step(
    "consent POST from another origin, or with no Origin/Referer, is refused (DESIGN §7)",
    async () => {
      const href = authorizeUrl(base, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: newPkce().challenge,
      });
      const page = await openConsent(href, alice);
      const evil = await submitConsent(base, href, alice, {
        action: "approve",
        consent_token: page.token!,
      }, "https://evil.example.net");
      assert.equal(evil.status, 403);
      assert.equal(evil.headers.get("location"), null);
      const none = await submitConsent(base, href, alice, {
        action: "approve",
        consent_token: page.token!,
      }, null);
      assert.equal(none.status, 403);
      // The token was not consumed by the refused posts: the real page still works.
      const ok = await submitConsent(base, href, alice, {
        action: "approve",
        consent_token: page.token!,
      });
      assert.equal(ok.status, 303);
      // …exactly once.
      const again = await submitConsent(base, href, alice, {
        action: "approve",
        consent_token: page.token!,
      });
      assert.equal(again.status, 403);
    },
  );

  await t.step(
    "the consent page forbids framing and is not readable cross-origin (RFC 6749 §10.13)",
    async () => {
      const href = authorizeUrl(base, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: newPkce().challenge,
      });
      const { res } = await openConsent(href, alice);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-frame-options"), "DENY");
      assert.match(res.headers.get("content-security-policy")!, /frame-ancestors 'none'/);
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.equal(res.headers.get("access-control-allow-origin"), null);
    },
  );

  await t.step(
    "deny redirects with access_denied, state and iss (OAuth 2.1 §4.1.2.1, RFC 9207)",
    async () => {
      const href = authorizeUrl(base, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: newPkce().challenge,
        state: "s-deny",
      });
      const page = await openConsent(href, alice);
      const res = await submitConsent(base, href, alice, {
        action: "deny",
        consent_token: page.token!,
      });
      assert.equal(res.status, 303);
      const back = new URL(res.headers.get("location")!);
      assert.equal(back.searchParams.get("error"), "access_denied");
      assert.equal(back.searchParams.get("state"), "s-deny");
      assert.equal(back.searchParams.get("iss"), base);
    },
  );

  await t.step(
    "a revoked grant's access and refresh tokens are refused on their next use",
    async () => {
      const tokens = await grant();
      assert.equal((await callTool(base, tokens.access_token)).status, 200);
      const listed = await post(base, "/api/proxy", { action: "listGrants" }, alice.sessionToken);
      const grants = listed.body.grants as {
        grantId: string;
        clientId: string;
        clientName: string;
      }[];
      assert.ok(grants.length > 0);
      assert.ok(grants.every((g) => g.clientId === clientId && g.clientName === "Test App"));
      // The manual clock stands still, so grants tie on createdAt: disconnect the app as a whole.
      const revoked = await post(
        base,
        "/api/proxy",
        { action: "revokeGrant", clientId },
        alice.sessionToken,
      );
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.equal(revoked.body.revoked, grants.length);
      assert.deepEqual(
        (await post(base, "/api/proxy", { action: "listGrants" }, alice.sessionToken)).body.grants,
        [],
      );
      const call = await callTool(base, tokens.access_token);
      assert.equal(call.status, 401);
      assert.match(call.headers.get("www-authenticate")!, /error="invalid_token"/);
      const refresh = await tokenRequest(base, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      });
      assert.equal(refresh.body.error, "invalid_grant");
      // One connection, by grantId.
      const single = await grant();
      const [only] = (await post(base, "/api/proxy", { action: "listGrants" }, alice.sessionToken))
        .body
        .grants as { grantId: string }[];
      const byId = await post(
        base,
        "/api/proxy",
        { action: "revokeGrant", grantId: only.grantId },
        alice.sessionToken,
      );
      assert.equal(byId.status, 200);
      assert.equal((await callTool(base, single.access_token)).status, 401);
      // Mallory cannot see or revoke alice's grants.
      const theirs = await post(base, "/api/proxy", { action: "listGrants" }, mallory.sessionToken);
      assert.deepEqual(theirs.body.grants, []);
    },
  );

  await t.step(
    "an access token is refused outside its resource (RFC 8707, MCP audience binding)",
    async () => {
      const tokens = await grant();
      const proxy = await post(base, "/api/proxy", { action: "getProfile" }, tokens.access_token);
      assert.equal(proxy.status, 401);
    },
  );

  await t.step("a signed-out member is sent to sign in and comes back to the request", async () => {
    const href = authorizeUrl(base, {
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: newPkce().challenge,
    });
    const signedOut = await fetch(href, { redirect: "manual" });
    const html = await signedOut.text();
    assert.equal(signedOut.status, 200);
    assert.match(html, /Sign in to continue/);
    const res = await fetch(href, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base },
      body: new URLSearchParams({
        action: "sign_in",
        username: "alice",
        password: "a long passphrase",
      }).toString(),
      redirect: "manual",
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(new URL(res.headers.get("location")!, base).href, href);
    const cookie = /rt_session=[^;]+/.exec(res.headers.get("set-cookie") ?? "")?.[0];
    assert.ok(cookie);
    const back = await approve(base, href, { ...alice, cookie: cookie! });
    assert.ok(back.searchParams.get("code"));
  });
});
