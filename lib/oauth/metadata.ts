/**
 * Discovery documents of Route B: RFC 9728 protected-resource metadata for the MCP endpoint and
 * RFC 8414 authorization-server metadata (DESIGN §10, spec-anchors §8.2–8.3).
 */

/** The only scope (spec "Rules"). */
export const OAUTH_SCOPE = "read";

/** MCP endpoint paths that are OAuth protected resources; `/api/v1/mcp` is the version alias. */
export const MCP_RESOURCE_PATHS = ["/api/mcp", "/api/v1/mcp"] as const;

/** A path of `MCP_RESOURCE_PATHS`. */
export type McpResourcePath = typeof MCP_RESOURCE_PATHS[number];

/**
 * The canonical form of a resource indicator (RFC 8707 §2, MCP 2025-11-25 §Canonical Server
 * URI): lowercase scheme and host (via URL parsing), no trailing slash. `null` when it is not an
 * absolute URI or carries a fragment (RFC 8707 §2: "MUST NOT include a fragment component").
 */
export function canonicalResource(resource: string): string | null {
  if (resource.includes("#")) return null;
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return null;
  }
  if (url.search) return null;
  return (url.origin + url.pathname).replace(/\/+$/, "");
}

/**
 * The MCP resource `resource` names on this server, canonicalised, or `null` when it names
 * something else. `/api/mcp` and `/api/v1/mcp` reach the same handlers, so each is accepted.
 */
export function mcpResourceOf(baseUrl: string, resource: string): string | null {
  const canonical = canonicalResource(resource);
  if (canonical === null) return null;
  for (const path of MCP_RESOURCE_PATHS) {
    if (canonical === canonicalResource(baseUrl + path)) return baseUrl + path;
  }
  return null;
}

/** The default resource when a client sends none (RFC 8707 is optional for OAuth clients). */
export function defaultMcpResource(baseUrl: string): string {
  return baseUrl + MCP_RESOURCE_PATHS[0];
}

/**
 * RFC 9728 §2 metadata for the MCP endpoint at `resourcePath`. `resource` is exactly the URL the
 * client called (RFC 9728 §3.3: it MUST equal the identifier the metadata URL was built from).
 */
export function protectedResourceMetadata(baseUrl: string, resourcePath: McpResourcePath) {
  return {
    resource: baseUrl + resourcePath,
    authorization_servers: [baseUrl],
    scopes_supported: [OAUTH_SCOPE],
    bearer_methods_supported: ["header"],
    resource_name: "Routine Tracker MCP",
    resource_documentation: `${baseUrl}/docs/mcp`,
  };
}

/** What the authorization server can do beyond the fixed core. */
export interface AuthorizationServerFeatures {
  /** Client ID Metadata Documents really resolve (fetch + SSRF guard + exact `client_id`). */
  clientIdMetadataDocuments: boolean;
}

/**
 * RFC 8414 §2 metadata. Every field a strict client relies on is explicit, because the RFC's
 * defaults are wrong for this server (omitted `grant_types_supported` means code + implicit,
 * omitted `token_endpoint_auth_methods_supported` means `client_secret_basic`, §2).
 */
export function authorizationServerMetadata(
  baseUrl: string,
  features: AuthorizationServerFeatures,
) {
  return {
    // RFC 8414 §3.3: identical to the issuer the well-known URL was built from.
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/api/oauth/authorize`,
    token_endpoint: `${baseUrl}/api/oauth/token`,
    registration_endpoint: `${baseUrl}/api/oauth/register`,
    scopes_supported: [OAUTH_SCOPE],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    // Public clients only: no client secret exists (spec "OAuth client").
    token_endpoint_auth_methods_supported: ["none"],
    // OAuth 2.1 §4.1.1 / MCP §Authorization Code Protection: S256 only, and say so.
    code_challenge_methods_supported: ["S256"],
    service_documentation: `${baseUrl}/docs/authentication`,
    // RFC 9207 §3: `iss` is sent on every authorization response, errors included.
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: features.clientIdMetadataDocuments,
  };
}
