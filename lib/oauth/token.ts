/** The token endpoint's logic (OAuth 2.1 §3.2, §4.1.3, §4.3; RFC 8707 §2.2). */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import type { AuthorizeContext } from "./authorize.ts";
import { findClient } from "./clients.ts";
import { exchangeAuthorizationCode, refreshAccessToken, type TokenResponse } from "./grants.ts";
import { mcpResourceOf } from "./metadata.ts";

const Text = z.string().max(2048);

/** Token request parameters (form-encoded or JSON; unknown parameters are ignored, RFC 6749 §3.2). */
export const TokenRequest = z.object({
  grant_type: Text.optional(),
  code: Text.optional(),
  code_verifier: Text.optional(),
  redirect_uri: Text.optional(),
  client_id: Text.optional(),
  refresh_token: Text.optional(),
  scope: Text.optional(),
  resource: Text.optional(),
  client_secret: Text.optional(),
}).loose();

/** Parsed token request parameters. */
export type TokenRequestInput = z.infer<typeof TokenRequest>;

/**
 * Serves one token request. Throws `AppError` with the RFC 6749 §5.2 code as its code
 * (invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type,
 * invalid_scope, invalid_target).
 */
export async function handleTokenRequest(
  ctx: AuthorizeContext,
  p: TokenRequestInput,
): Promise<TokenResponse> {
  if (!p.grant_type) throw new AppError("invalid_request", "grant_type is required.");
  if (p.grant_type !== "authorization_code" && p.grant_type !== "refresh_token") {
    throw new AppError(
      "unsupported_grant_type",
      "grant_type must be authorization_code or refresh_token.",
    );
  }
  // OAuth 2.1 §3.2.1: a public client identifies itself with client_id; there are no secrets.
  if (!p.client_id) {
    throw new AppError(
      "invalid_request",
      "client_id is required (public clients authenticate with none).",
    );
  }
  if (p.client_secret !== undefined) {
    throw new AppError(
      "invalid_client",
      "This server has only public clients; do not send a client_secret.",
    );
  }
  const client = await findClient({
    kv: ctx.kv,
    clock: ctx.clock,
    clientId: p.client_id,
    fetchDocument: ctx.fetchClientDocument,
  });
  if (!client) throw new AppError("invalid_client", "Unknown client_id.");
  // RFC 8707 §2.2: a resource the server does not serve is invalid_target, before anything else.
  let resource: string | null = null;
  if (p.resource !== undefined) {
    resource = mcpResourceOf(ctx.baseUrl, p.resource);
    if (!resource) {
      throw new AppError("invalid_target", "resource does not name this server's MCP endpoint.");
    }
  }
  if (p.grant_type === "authorization_code") {
    if (!p.code) throw new AppError("invalid_request", "code is required.");
    if (!p.code_verifier) {
      throw new AppError("invalid_request", "code_verifier is required (PKCE, RFC 7636 §4.5).");
    }
    return await exchangeAuthorizationCode({
      kv: ctx.kv,
      clock: ctx.clock,
      params: {
        code: p.code,
        codeVerifier: p.code_verifier,
        clientId: client.clientId,
        redirectUri: p.redirect_uri ?? null,
        resource,
      },
      clientAllowsRefresh: client.grantTypes.includes("refresh_token"),
      keepClient: client.source === "registration" && client.expiresAt !== undefined,
    });
  }
  // RFC 6749 §5.2: the client did not register the refresh_token grant.
  if (!client.grantTypes.includes("refresh_token")) {
    throw new AppError(
      "unauthorized_client",
      "This client did not register the refresh_token grant type.",
    );
  }
  if (!p.refresh_token) throw new AppError("invalid_request", "refresh_token is required.");
  return await refreshAccessToken(ctx.kv, ctx.clock, {
    refreshToken: p.refresh_token,
    clientId: client.clientId,
    scope: p.scope ?? null,
    resource,
  });
}
