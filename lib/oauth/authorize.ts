/**
 * The authorization endpoint's logic (OAuth 2.1 §4.1.1–4.1.2.1, RFC 7636, RFC 8707, RFC 9207):
 * validating a request, and turning the member's decision into the redirect back to the client.
 */

import type { Clock } from "../clock.ts";
import { AppError } from "../errors.ts";
import type { ClientMetadataFetcher } from "./client_metadata_document.ts";
import { findClient, type OAuthClient } from "./clients.ts";
import {
  type AuthorizationRequest,
  consumeConsentTicket,
  issueAuthorizationCode,
} from "./grants.ts";
import { defaultMcpResource, mcpResourceOf, OAUTH_SCOPE } from "./metadata.ts";
import { findRedirectUri } from "./redirect_uri.ts";

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

/**
 * Validates an authorization request given as its query parameters (each name → every value sent).
 * Client and redirect URI come first: until both are verified nothing may be redirected.
 */
export async function checkAuthorizationRequest(
  ctx: AuthorizeContext,
  query: Record<string, string[]>,
): Promise<AuthorizationCheck> {
  const one = (name: string): string | null | undefined => {
    const v = query[name];
    if (!v || v.length === 0) return null;
    return v.length === 1 ? v[0] : undefined; // undefined = sent more than once
  };
  const clientId = one("client_id");
  if (!clientId) {
    return {
      kind: "page",
      error: "invalid_request",
      description: "The request has no client_id (or more than one).",
    };
  }
  let client: OAuthClient | null;
  try {
    client = await findClient(ctx.kv, ctx.clock, clientId, {
      fetchDocument: ctx.fetchClientDocument,
    });
  } catch (err) {
    if (err instanceof AppError) {
      return { kind: "page", error: "invalid_client", description: err.message };
    }
    throw err;
  }
  if (!client) {
    return {
      kind: "page",
      error: "invalid_client",
      description: "The app is not registered with Routine Tracker (unknown client_id).",
    };
  }
  const redirectParam = one("redirect_uri");
  // Always required here: clients may register several URIs, and OAuth 2.1 §4.1.3 then needs
  // the same value at the token endpoint.
  if (!redirectParam) {
    return {
      kind: "page",
      error: "invalid_request",
      description: "The request has no redirect_uri (or more than one).",
    };
  }
  // OAuth 2.1 §4.1.1: exact string match against a registered URI (loopback: any port).
  const registered = findRedirectUri(client.redirectUris, redirectParam);
  if (!registered) {
    return {
      kind: "page",
      error: "invalid_request",
      description: "The redirect_uri is not registered for this app.",
    };
  }
  const redirectUri = redirectParam;
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
  const responseType = one("response_type");
  if (responseType !== "code") {
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
  const scopeParam = one("scope");
  const scopes = (scopeParam ?? OAUTH_SCOPE).split(" ").filter((s) => s !== "");
  if (scopes.length === 0 || scopes.some((s) => s !== OAUTH_SCOPE)) {
    return fail("invalid_scope", `The only scope is "${OAUTH_SCOPE}".`);
  }
  const resourceParam = one("resource");
  let resource = defaultMcpResource(ctx.baseUrl);
  if (resourceParam) {
    // RFC 8707 §2: the resource must be one this server issues tokens for.
    const named = mcpResourceOf(ctx.baseUrl, resourceParam);
    if (!named) {
      return fail("invalid_target", `resource must be ${defaultMcpResource(ctx.baseUrl)}.`);
    }
    resource = named;
  }
  return {
    kind: "valid",
    client,
    request: {
      clientId: client.clientId,
      clientName: client.clientName,
      redirectUri,
      codeChallenge: challenge,
      scope: OAUTH_SCOPE,
      resource,
      state: state ?? null,
    },
  };
}

/**
 * Applies the member's decision on a consent form: consumes the ticket (CSRF check, single use),
 * then returns where to send the browser — the client's redirect URI with a code, or with
 * `error=access_denied` (OAuth 2.1 §4.1.2.1).
 */
export async function decideConsent(
  ctx: AuthorizeContext,
  ticket: string,
  sessionBinding: string,
  memberId: string,
  approve: boolean,
): Promise<string> {
  const consumed = await consumeConsentTicket(ctx.kv, ctx.clock, ticket, sessionBinding);
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
  const code = await issueAuthorizationCode(ctx.kv, ctx.clock, memberId, request);
  return clientRedirect(request.redirectUri, ctx.baseUrl, { code, state: request.state });
}
