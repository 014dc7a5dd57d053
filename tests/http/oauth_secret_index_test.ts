/**
 * The per-member index of OAuth secrets (issue #21 item 6): every record keyed by a secret's hash
 * (consent ticket, code, spent code, access and refresh token) has an `oauth_member_secrets`
 * entry under its member, written and deleted in the same commits, so account deletion reads the
 * member's own secrets. Checked through the real flow over HTTP: after each step, the member's
 * index names exactly the secrets of theirs that exist.
 */

import assert from "node:assert/strict";
import { startServer } from "../_helpers.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import {
  authorizeUrl,
  type BrowserMember,
  newPkce,
  openConsent,
  registerClient,
  signUpMember,
  submitConsent,
  tokenRequest,
} from "./_oauth.ts";

/** The member's secrets as the secret records hold them: `prefix/hash`, sorted. */
async function secretsOf(kv: Deno.Kv, memberId: string): Promise<string[]> {
  const out: string[] = [];
  for (const prefix of keys.oauthSecretPrefixes()) {
    for await (const e of kv.list<{ memberId?: string }>({ prefix })) {
      if (e.value?.memberId === memberId) out.push(e.key.slice(0, 2).join("/"));
    }
  }
  return out.sort();
}

/** The member's secrets as their index names them: `prefix/hash`, sorted. */
async function indexOf(kv: Deno.Kv, memberId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list({ prefix: keys.oauthSecretsOfMember(memberId) })) {
    out.push(e.key.slice(2, 4).join("/"));
  }
  return out.sort();
}

/** Asserts the index names exactly the member's secrets, and how many of each kind there are. */
async function assertIndexed(kv: Deno.Kv, member: BrowserMember, kinds: Record<string, number>) {
  const secrets = await secretsOf(kv, member.memberId);
  assert.deepEqual(await indexOf(kv, member.memberId), secrets);
  const counted: Record<string, number> = {};
  for (const s of secrets) counted[s.split("/")[0]] = (counted[s.split("/")[0]] ?? 0) + 1;
  assert.deepEqual(counted, kinds);
}

Deno.test("OAuth: each OAuth secret is indexed under its member while it exists, through consent, code, token and refresh", async () => {
  await using server = await startServer();
  const { url, kv } = server;
  const member = await signUpMember(url, "indexed_member");
  const other = await signUpMember(url, "other_member");
  const redirectUri = "http://127.0.0.1:9/callback";
  const clientId = await registerClient(url, [redirectUri]);
  const pkce = newPkce();
  const href = authorizeUrl(url, {
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: pkce.challenge,
  });
  const page = await openConsent(href, member);
  assert.ok(page.token);
  await openConsent(href, other);
  await assertIndexed(kv, member, { oauth_consent_tickets: 1 });

  const back = await submitConsent(url, href, member, {
    action: "approve",
    consent_token: page.token!,
  });
  assert.equal(back.status, 303);
  const code = new URL(back.headers.get("location")!).searchParams.get("code")!;
  // The ticket and its entry went in one commit; the code and its entry came in another.
  await assertIndexed(kv, member, { oauth_codes: 1 });

  const tokens = await tokenRequest(url, {
    grant_type: "authorization_code",
    code,
    code_verifier: pkce.verifier,
    client_id: clientId,
    redirect_uri: redirectUri,
  });
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  await assertIndexed(kv, member, {
    oauth_access_tokens: 1,
    oauth_refresh_tokens: 1,
    oauth_spent_codes: 1,
  });

  let refreshToken = tokens.body.refresh_token as string;
  for (let i = 0; i < 2; i++) {
    const refreshed = await tokenRequest(url, {
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: clientId,
    });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    refreshToken = refreshed.body.refresh_token as string;
  }
  // Rotated refresh tokens stay (reuse detection, OAuth 2.1 §4.3.1), and so do their entries.
  await assertIndexed(kv, member, {
    oauth_access_tokens: 3,
    oauth_refresh_tokens: 3,
    oauth_spent_codes: 1,
  });
  await assertIndexed(kv, other, { oauth_consent_tickets: 1 });
});
