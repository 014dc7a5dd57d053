/** Route B over real HTTP for tests: a browser member, client registration, consent, tokens. */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { post } from "./_members.ts";

/** The password every test member uses. */
export const PASSWORD = "a long passphrase";

/** A member signed in the way a browser is: the session cookie. */
export interface BrowserMember {
  username: string;
  memberId: string;
  sessionToken: string;
  /** `Cookie` header value. */
  cookie: string;
}

/** Registers `username` through /api/auth and keeps the session cookie it sets. */
export async function signUpMember(url: string, username: string): Promise<BrowserMember> {
  const res = await fetch(`${url}/api/auth`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ action: "register", username, password: PASSWORD }),
  });
  assert.equal(res.status, 201);
  const body = await res.json();
  const setCookie = res.headers.get("set-cookie") ?? "";
  const cookie = /rt_session=[^;]+/.exec(setCookie)?.[0];
  assert.ok(cookie, "the session cookie is set");
  return { username, memberId: body.memberId, sessionToken: body.sessionToken, cookie };
}

/** Gives the member a `mood` column and one entry, so tool results are recognisably theirs. */
export async function seedMood(url: string, member: BrowserMember, value = 4): Promise<void> {
  const col = await post(url, "/api/proxy", {
    action: "createColumn",
    key: "mood",
    label: "Mood",
    type: "scale",
    scale_min: 1,
    scale_max: 5,
  }, member.sessionToken);
  assert.equal(col.status, 200, JSON.stringify(col.body));
  const entry = await post(url, "/api/proxy", {
    action: "saveEntry",
    date: "2026-11-20",
    values: { mood: value },
  }, member.sessionToken);
  assert.equal(entry.status, 200, JSON.stringify(entry.body));
}

/** A PKCE pair (RFC 7636 §4.1–4.2). */
export function newPkce(): { verifier: string; challenge: string } {
  const verifier = createHash("sha256").update(crypto.randomUUID()).digest("base64url") +
    "-verifier";
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** Registers a public client and returns its `client_id`. */
export async function registerClient(
  url: string,
  redirectUris: string[] = ["http://127.0.0.1:9/callback"],
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await post(url, "/api/oauth/register", {
    client_name: "Test App",
    redirect_uris: redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...extra,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.client_id as string;
}

/** The authorization URL for `params` (defaults: code, S256, read, the MCP resource). */
export function authorizeUrl(url: string, params: Record<string, string | undefined>): string {
  const u = new URL(`${url}/api/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    response_type: "code",
    code_challenge_method: "S256",
    scope: "read",
    resource: `${url}/api/mcp`,
    state: "st-" + crypto.randomUUID(),
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}

/** GETs the consent page as the member and returns the page and its consent token. */
export async function openConsent(
  authorizeHref: string,
  member: BrowserMember,
): Promise<{ res: Response; html: string; token: string | null }> {
  const res = await fetch(authorizeHref, {
    headers: { cookie: member.cookie },
    redirect: "manual",
  });
  const html = await res.text();
  const token = /value="(rt_ct_[A-Za-z0-9_-]+)"/.exec(html)?.[1] ?? null;
  return { res, html, token };
}

/** POSTs the consent form (as the page's own form would) and returns the raw response. */
export async function submitConsent(
  url: string,
  authorizeHref: string,
  member: BrowserMember,
  fields: Record<string, string>,
  origin: string | null = url,
): Promise<Response> {
  const headers: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    cookie: member.cookie,
  };
  if (origin !== null) headers.Origin = origin;
  const res = await fetch(authorizeHref, {
    method: "POST",
    headers,
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
  await res.body?.cancel();
  return res;
}

/** Runs the browser half of the flow as the member and returns the redirect back to the client. */
export async function approve(
  url: string,
  authorizeHref: string,
  member: BrowserMember,
): Promise<URL> {
  const page = await openConsent(authorizeHref, member);
  assert.equal(page.res.status, 200, page.html);
  assert.ok(page.token, "the consent page carries a consent token");
  const res = await submitConsent(url, authorizeHref, member, {
    action: "approve",
    consent_token: page.token!,
  });
  assert.equal(res.status, 303);
  return new URL(res.headers.get("location")!);
}

/** The whole front channel: register nothing, authorize, approve; returns the code. */
export async function codeFor(
  url: string,
  member: BrowserMember,
  clientId: string,
  redirectUri: string,
  challenge: string,
  extra: Record<string, string | undefined> = {},
): Promise<string> {
  const back = await approve(
    url,
    authorizeUrl(url, {
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      ...extra,
    }),
    member,
  );
  const code = back.searchParams.get("code");
  assert.ok(code, `a code comes back: ${back}`);
  return code!;
}

/** POSTs a form-encoded token request. */
export async function tokenRequest(
  url: string,
  params: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${url}/api/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** A registered client's whole code flow as `member`: PKCE, consent, code → tokens. */
export async function grantTokensFor(
  url: string,
  flow: { member: BrowserMember; clientId: string; redirectUri: string; resource?: string },
): Promise<{ access_token: string; refresh_token: string }> {
  const pkce = newPkce();
  const code = await codeFor(url, flow.member, flow.clientId, flow.redirectUri, pkce.challenge);
  const res = await tokenRequest(url, {
    grant_type: "authorization_code",
    code,
    code_verifier: pkce.verifier,
    client_id: flow.clientId,
    redirect_uri: flow.redirectUri,
    ...(flow.resource ? { resource: flow.resource } : {}),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { access_token: string; refresh_token: string };
}

/** Registers a client and runs the whole flow as `member`; returns the access token. */
export async function accessTokenFor(
  url: string,
  member: BrowserMember,
  redirectUri = "http://127.0.0.1:9/callback",
): Promise<string> {
  const clientId = await registerClient(url, [redirectUri]);
  return (await grantTokensFor(url, { member, clientId, redirectUri })).access_token;
}

/** A tools/call on /api/mcp with `token`; returns status and parsed body. */
export async function callTool(url: string, token: string, name = "list_columns", args = {}) {
  return await post(url, "/api/mcp", {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  }, token);
}
