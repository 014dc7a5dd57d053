/**
 * Zod schemas of what the OAuth endpoints and metadata documents answer (RFC 7591 §3.2.1,
 * RFC 6749 §5.1–5.2, RFC 9728 §2, RFC 8414 §2), plus the authorize query (OAuth 2.1 §4.1.1).
 * The builders (clients.ts, grants.ts, metadata.ts) produce these shapes; the OpenAPI description
 * is generated from the schemas and the contract test checks the real responses against it.
 * Request bodies are parsed where they always were: `ClientMetadata` (clients.ts) and
 * `TokenRequest` (token.ts).
 */

import { z } from "zod";
import { SUPPORTED_GRANT_TYPES } from "./clients.ts";
import { OAUTH_SCOPE } from "./metadata.ts";

/** `registrationResponse()`: RFC 7591 §3.2.1, public clients only (no client_secret). */
export const ClientRegistrationResponse = z.object({
  client_id: z.string(),
  client_id_issued_at: z.int().meta({ description: "Seconds since the Unix epoch." }),
  client_name: z.string().optional(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.enum(SUPPORTED_GRANT_TYPES)),
  response_types: z.array(z.literal("code")),
  token_endpoint_auth_method: z.literal("none"),
  scope: z.literal(OAUTH_SCOPE),
}).strict();

/** `TokenResponse` (grants.ts): RFC 6749 §5.1. */
export const OAuthTokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.int().positive(),
  scope: z.string(),
  refresh_token: z.string().optional(),
}).strict();

/** The OAuth error body (lib/http/oauth/oauth_errors.ts): RFC 6749 §5.2 plus `code` and `requestId`. */
export const OAuthErrorResponse = z.object({
  error: z.string().meta({
    description: "RFC 6749 §5.2 / RFC 7591 §3.2.2 / RFC 8707 error code, e.g. invalid_grant.",
  }),
  error_description: z.string(),
  code: z.string().meta({ description: "The same value as `error` (DESIGN §5)." }),
  requestId: z.string(),
}).loose();

/** `protectedResourceMetadata()`: RFC 9728 §2. */
export const ProtectedResourceMetadata = z.object({
  resource: z.url(),
  authorization_servers: z.array(z.url()).min(1),
  scopes_supported: z.array(z.literal(OAUTH_SCOPE)),
  bearer_methods_supported: z.array(z.literal("header")),
  resource_name: z.string(),
  resource_documentation: z.url(),
}).strict();

/** `authorizationServerMetadata()`: RFC 8414 §2. */
export const AuthorizationServerMetadata = z.object({
  issuer: z.url(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  registration_endpoint: z.url(),
  scopes_supported: z.array(z.literal(OAUTH_SCOPE)),
  response_types_supported: z.array(z.literal("code")),
  response_modes_supported: z.array(z.literal("query")),
  grant_types_supported: z.array(z.enum(SUPPORTED_GRANT_TYPES)),
  token_endpoint_auth_methods_supported: z.array(z.literal("none")),
  code_challenge_methods_supported: z.array(z.literal("S256")),
  service_documentation: z.url(),
  authorization_response_iss_parameter_supported: z.literal(true),
  client_id_metadata_document_supported: z.boolean(),
}).strict();

/** `GrantSummary` (grants.ts): a connected app as the member sees it (`listGrants`). */
export const GrantSummaryView = z.object({
  grantId: z.string(),
  clientId: z.string(),
  clientName: z.string().nullable(),
  redirectHost: z.string(),
  scope: z.string(),
  resource: z.string(),
  createdAt: z.iso.datetime(),
  refreshedAt: z.iso.datetime().nullable(),
}).strict();

/**
 * The query of `GET /api/oauth/authorize` as checkAuthorizationRequest() (authorize.ts) reads it.
 * That function reads parameters one by one so it can decide between an error page and a redirect
 * (OAuth 2.1 §4.1.2.1); this schema describes them for the OpenAPI document.
 */
export const AuthorizeQuery = z.object({
  response_type: z.literal("code"),
  client_id: z.string().meta({
    description: "From POST /api/oauth/register, or an https client metadata document URL.",
  }),
  redirect_uri: z.string().meta({ description: "Exactly one of the registered redirect URIs." }),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/).meta({
    description: "BASE64URL(SHA-256(code_verifier)) (RFC 7636 §4.2).",
  }),
  code_challenge_method: z.literal("S256").meta({
    description: "Only S256; plain (or omitting the method) is refused.",
  }),
  state: z.string().optional().meta({ description: "Echoed on the redirect back." }),
  scope: z.literal(OAUTH_SCOPE).optional(),
  resource: z.url().optional().meta({
    description: "RFC 8707: the MCP endpoint, {base}/api/mcp.",
  }),
});
