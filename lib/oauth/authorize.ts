/**
 * The authorization endpoint's logic (OAuth 2.1 §4.1.1–4.1.2.1, RFC 7636, RFC 8707, RFC 9207):
 * validating a request, and turning the member's decision into the redirect back to the client.
 */

import type { Clock } from "../foundation/clock.ts";
import { AppError } from "../foundation/errors.ts";
import type { ClientMetadataFetcher } from "./client_metadata_document.ts";
import { findClient, type OAuthClient } from "./clients.ts";
import {
  type AuthorizationRequest,
  consumeConsentTicket,
  issueAuthorizationCode,
} from "./grants.ts";
import { defaultMcpResource, mcpResourceOf, OAUTH_SCOPE } from "./metadata.ts";
import { findRedirectUri, redirectUriProblem } from "./redirect_uri.ts";

/** What the authorization endpoint needs from the app. */
export interface AuthorizeContext {
  kv: Deno.Kv;
  clock: Clock;
  baseUrl: string;
  fetchClientDocument?: ClientMetadataFetcher;
}

/** The outcome of validating an authorization request. */
export type AuthorizationCheck =
  /** Valid: show the consent screen (after sign-in). */
  | { kind: "valid"; request: AuthorizationRequest; client: OAuthClient }
  /**
   * Invalid, and the client or redirect URI cannot be trusted: show the error to the member and
   * never redirect (RFC 6749 §4.1.2.1, OAuth 2.1 §4.1.2.1 — an open redirector otherwise).
   */
  | { kind: "page"; error: string; description: string }
  /** Invalid, reported to the client at its verified redirect URI. */
  | { kind: "redirect"; location: string };

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The redirect back to the client with `params` added to the redirect URI's own query (RFC 6749
 * §3.1.2 keeps it), plus `iss` (RFC 9207 §2: on success and error responses alike).
 */
export function clientRedirect(
  redirectUri: string,
  issuer: string,
  params: Record<string, string | null>,
): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.append(k, v);
  url.searchParams.append("iss", issuer);
  return url.href;
}

/** One query parameter: null when absent, undefined when sent more than once. */
type OneParam = (name: string) => string | null | undefined;

/**
 * Validates an authorization request given as its query parameters (each name → every value sent).
 * Client and redirect URI come first: until both are verified nothing may be redirected.
 */
export async function checkAuthorizationRequest(
  ctx: AuthorizeContext,
  query: Record<string, string[]>,
): Promise<AuthorizationCheck> {
  const one: OneParam = (name) => {
    const v = query[name];
    if (!v || v.length === 0) return null;
    return v.length === 1 ? v[0] : undefined; // undefined = sent more than once
  };
  const verified = await verifyClientAndRedirect(ctx, one);
  if ("kind" in verified) return verified;
  const { client, redirectUri } = verified;
  const state = one("state");
  const fail = (error: string, description: string): AuthorizationCheck => ({
    kind: "redirect",
    location: clientRedirect(redirectUri, ctx.baseUrl, {
      error,
      error_description: description,
      state: typeof state === "string" ? state : null,
    }),
  });
  if (state === undefined) return fail("invalid_request", "state was sent more than once.");
  for (const [name, values] of Object.entries(query)) {
    // RFC 6749 §3.1: parameters MUST NOT be included more than once.
    if (values.length > 1) return fail("invalid_request", `${name} was sent more than once.`);
  }
  const checked = checkGrantParams(ctx, one);
  if ("error" in checked) return fail(checked.error, checked.description);
  return {
    kind: "valid",
    client,
    request: {
      clientId: client.clientId,
      clientName: client.clientName,
      redirectUri,
      codeChallenge: checked.challenge,
      scope: OAUTH_SCOPE,
      resource: checked.resource,
      state: state ?? null,
    },
  };
}

/** A refusal shown on our own page: nothing may be redirected to an unverified URI. */
type PageRefusal = Extract<AuthorizationCheck, { kind: "page" }>;

/** The client and its registered redirect URI, or the page that refuses the request. */
async function verifyClientAndRedirect(
  ctx: AuthorizeContext,
  one: OneParam,
): Promise<PageRefusal | { client: OAuthClient; redirectUri: string }> {
  const page = (error: string, description: string): PageRefusal => ({
    kind: "page",
    error,
    description,
  });
  const clientId = one("client_id");
  if (!clientId) return page("invalid_request", "The request has no client_id (or more than one).");
  let client: OAuthClient | null;
  try {
    client = await findClient({
      kv: ctx.kv,
      clock: ctx.clock,
      clientId,
      fetchDocument: ctx.fetchClientDocument,
    });
  } catch (err) {
    if (err instanceof AppError) return page("invalid_client", err.message);
    throw err;
  }
  if (!client) {
    return page(
      "invalid_client",
      "The app is not registered with Routine Tracker (unknown client_id).",
    );
  }
  const redirectUri = one("redirect_uri");
  // Always required here: clients may register several URIs, and OAuth 2.1 §4.1.3 then needs
  // the same value at the token endpoint.
  if (!redirectUri) {
    return page("invalid_request", "The request has no redirect_uri (or more than one).");
  }
  // RFC 6749 §4.1.2.1: an invalid redirect URI is reported here, never redirected to — and a
  // URI no redirect can reach (port outside 1–65535, unparsable) is invalid even on loopback.
  const problem = redirectUriProblem(redirectUri);
  if (problem) return page("invalid_request", `The redirect_uri ${problem}.`);
  // OAuth 2.1 §4.1.1: exact string match against a registered URI (loopback: any port).
  if (!findRedirectUri(client.redirectUris, redirectUri)) {
    return page("invalid_request", "The redirect_uri is not registered for this app.");
  }
  return { client, redirectUri };
}

/** response_type, PKCE, scope and resource; a refusal is redirected to the client. */
function checkGrantParams(
  ctx: AuthorizeContext,
  one: OneParam,
): { challenge: string; resource: string } | { error: string; description: string } {
  const fail = (error: string, description: string) => ({ error, description });
  if (one("response_type") !== "code") {
    return fail("unsupported_response_type", "response_type must be code.");
  }
  const challenge = one("code_challenge");
  const method = one("code_challenge_method");
  // OAuth 2.1 §4.1.1 / RFC 7636 §4.3: a missing method means "plain", and plain is refused:
  // only S256 binds the code to a verifier an eavesdropper of the request cannot derive.
  if (!challenge) return fail("invalid_request", "code_challenge is required (PKCE, S256).");
  if (method !== "S256") {
    return fail(
      "invalid_request",
      "code_challenge_method must be S256; plain and a missing method are not accepted.",
    );
  }
  if (!CHALLENGE.test(challenge)) {
    return fail(
      "invalid_request",
      "code_challenge must be the 43-character base64url SHA-256 of the verifier.",
    );
  }
  const scopes = (one("scope") ?? OAUTH_SCOPE).split(" ").filter((s) => s !== "");
  if (scopes.length === 0 || scopes.some((s) => s !== OAUTH_SCOPE)) {
    return fail("invalid_scope", `The only scope is "${OAUTH_SCOPE}".`);
  }
  const resourceParam = one("resource");
  if (!resourceParam) return { challenge, resource: defaultMcpResource(ctx.baseUrl) };
  // RFC 8707 §2: the resource must be one this server issues tokens for.
  const named = mcpResourceOf(ctx.baseUrl, resourceParam);
  if (!named) return fail("invalid_target", `resource must be ${defaultMcpResource(ctx.baseUrl)}.`);
  return { challenge, resource: named };
}

/** The member's answer on a consent form. */
export interface ConsentDecision {
  ctx: AuthorizeContext;
  ticket: string;
  sessionBinding: string;
  memberId: string;
  approve: boolean;
}

/**
 * Applies the member's decision on a consent form: consumes the ticket (CSRF check, single use),
 * then returns where to send the browser — the client's redirect URI with a code, or with
 * `error=access_denied` (OAuth 2.1 §4.1.2.1).
 */
export async function decideConsent(
  { ctx, ticket, sessionBinding, memberId, approve }: ConsentDecision,
): Promise<string> {
  const consumed = await consumeConsentTicket({
    kv: ctx.kv,
    clock: ctx.clock,
    ticket,
    sessionBinding,
  });
  if (consumed.memberId !== memberId) {
    throw new AppError("forbidden", "The consent form was issued to another member.");
  }
  const request = consumed.request;
  if (!approve) {
    return clientRedirect(request.redirectUri, ctx.baseUrl, {
      error: "access_denied",
      error_description: "The member denied access.",
      state: request.state,
    });
  }
  const code = await issueAuthorizationCode({ kv: ctx.kv, clock: ctx.clock, memberId, request });
  return clientRedirect(request.redirectUri, ctx.baseUrl, { code, state: request.state });
}
