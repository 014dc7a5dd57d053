/**
 * The discovery documents (spec "Discovery documents", DESIGN §11): the RFC 9727 api-catalog,
 * the MCP manifest (`/.well-known/mcp.json`), `llms.txt` and `llms-full.txt`. Every builder takes
 * the configured base URL, never a request's `Host`, and reads the tool registry, the revision
 * list and the docs corpus, so the documents cannot drift from what the service does.
 * HTTP-free: `lib/http/kernel/discovery_response.ts` adds content types and cache validators.
 */

import { z } from "zod";
import { SERVICE_VERSION } from "../foundation/config.ts";
import { prefixOf } from "../foundation/secrets.ts";
import type { DocPage } from "./docs.ts";
import {
  INITIALIZE_REVISIONS,
  PER_REQUEST_REVISIONS,
  SUPPORTED_REVISIONS,
} from "../mcp/protocol.ts";
import { RATE_LIMIT_POLICIES } from "../policy/rate_limit.ts";
import { SERVER_TITLE } from "../mcp/identity.ts";
import { DOCUMENTED_INPUT_SCHEMAS, TOOL_DESCRIPTORS } from "../tools/registry.ts";

/** RFC 9727 §7.3 profile URI, sent as the `profile` parameter of the catalog's media type. */
export const API_CATALOG_PROFILE = "https://www.rfc-editor.org/info/rfc9727";

/** Media type of the api-catalog (RFC 9264 §4.2 linkset JSON with the RFC 9727 profile). */
export const API_CATALOG_CONTENT_TYPE =
  `application/linkset+json; profile="${API_CATALOG_PROFILE}"`;

/** Schema URI of the MCP server card the manifest stays compatible with (spec-anchors §8.7). */
export const SERVER_CARD_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/** Name of the CLI's npm package and of its tarball, served at `/cli/<name>.tgz`. */
export const CLI_PACKAGE_NAME = "routine-tracker-cli";

/** Path of the CLI tarball. */
export const CLI_TARBALL_PATH = `/cli/${CLI_PACKAGE_NAME}.tgz`;

/** Docs pages listed under `## Optional` in llms.txt: useful, but skippable when context is short. */
const OPTIONAL_SLUGS: ReadonlySet<string> = new Set(["changelog", "membership"]);

/** One machine-readable discovery document, as listed in llms.txt and the developer overview. */
export interface DiscoveryDocument {
  path: string;
  title: string;
  contentType: string;
  notes: string;
}

/** The seven distinct discovery documents (DESIGN §11), in the order of the spec's table. */
export const DISCOVERY_DOCUMENTS: readonly DiscoveryDocument[] = [
  {
    path: "/openapi.json",
    title: "OpenAPI description",
    contentType: "application/openapi+json",
    notes: "OpenAPI 3.1: every endpoint and discovery document, typed schemas, access terms, " +
      "rate-limit and deprecation policies (also at /.well-known/openapi.json)",
  },
  {
    path: "/.well-known/api-catalog",
    title: "API catalog",
    contentType: API_CATALOG_CONTENT_TYPE,
    notes: "RFC 9727 linkset naming every API, its description, docs and health check",
  },
  {
    path: "/.well-known/mcp.json",
    title: "MCP manifest",
    contentType: "application/json",
    notes: "transport, endpoint, sandbox, protocol revisions, tool list, access terms, pricing " +
      "(also at /mcp.json)",
  },
  {
    path: "/.well-known/oauth-protected-resource",
    title: "OAuth protected-resource metadata",
    contentType: "application/json",
    notes: "RFC 9728: which authorization server protects the MCP endpoint",
  },
  {
    path: "/.well-known/oauth-authorization-server",
    title: "OAuth authorization-server metadata",
    contentType: "application/json",
    notes: "RFC 8414: endpoints, PKCE S256, dynamic client registration",
  },
  {
    path: "/llms.txt",
    title: "llms.txt",
    contentType: "text/plain",
    notes: "this documentation index for language models",
  },
  {
    path: "/llms-full.txt",
    title: "llms-full.txt",
    contentType: "text/plain",
    notes: "every documentation page inlined in one file",
  },
];

// ---------------------------------------------------------------------------------------------
// api-catalog (RFC 9727, RFC 9264 linkset JSON, RFC 8631 relations)

/** One link target of a linkset (RFC 9264 §4.2.4). Extension attributes are arrays of values. */
export interface LinkTarget {
  href: string;
  type?: string;
  title?: string;
  [extension: string]: string | { value: string; language?: string }[] | undefined;
}

/** One link context object: an `anchor` and its relations (RFC 9264 §4.2.2). */
export interface LinkContext {
  anchor: string;
  [relation: string]: string | LinkTarget[];
}

/** The api-catalog document. */
export interface ApiCatalog {
  linkset: LinkContext[];
}

/**
 * The health check, described on the link itself: it is a POST with a body, which a bare `status`
 * link cannot say, so the title says it in words and RFC 9264 §4.2.4.3 extension attributes say it
 * for machines.
 */
function healthCheckLink(base: string): LinkTarget {
  return {
    href: `${base}/api/proxy`,
    type: "application/json",
    title: 'Health check: POST {"action":"healthCheck"} with Content-Type: application/json, ' +
      "no credential; answers version, status (healthy), timestamp and denoKv (connected)",
    method: [{ value: "POST" }],
    "request-body": [{ value: '{"action":"healthCheck"}' }],
  };
}

/**
 * Builds the RFC 9727 catalog: a first context (the catalog itself) with an `item` per API, then
 * one context per API with `service-desc`, `service-doc` and `status` (RFC 8631).
 *
 * @example
 * ```ts
 * const catalog = buildApiCatalog("https://routine.example.com");
 * catalog.linkset[0].anchor; // "https://routine.example.com/.well-known/api-catalog"
 * ```
 */
export function buildApiCatalog(base: string): ApiCatalog {
  const status = [healthCheckLink(base)];
  const restApi: LinkContext = {
    anchor: `${base}/api`,
    "service-desc": [{
      href: `${base}/openapi.json`,
      type: "application/openapi+json",
      title: "OpenAPI 3.1 description of the REST, MCP and OAuth endpoints",
    }],
    "service-doc": [
      { href: `${base}/api`, type: "text/html", title: "Developer overview" },
      { href: `${base}/docs/developers.md`, type: "text/markdown", title: "Developer overview" },
    ],
    "service-meta": [
      { href: `${base}/llms.txt`, type: "text/plain", title: "Documentation index for LLMs" },
    ],
    status,
  };
  const mcpServer: LinkContext = {
    anchor: `${base}/api/mcp`,
    "service-desc": [
      { href: `${base}/.well-known/mcp.json`, type: "application/json", title: "MCP manifest" },
      { href: `${base}/openapi.json`, type: "application/openapi+json", title: "OpenAPI 3.1" },
    ],
    "service-doc": [
      { href: `${base}/docs/mcp`, type: "text/html", title: "MCP server" },
      { href: `${base}/docs/mcp-tools`, type: "text/html", title: "MCP tools" },
    ],
    status,
  };
  const sandbox: LinkContext = {
    anchor: `${base}/api/sandbox`,
    "service-desc": [
      { href: `${base}/.well-known/mcp.json`, type: "application/json", title: "MCP manifest" },
    ],
    "service-doc": [
      { href: `${base}/docs/sandbox`, type: "text/html", title: "Sandbox (synthetic data)" },
    ],
    status,
  };
  const apis = [restApi, mcpServer, sandbox];
  return {
    linkset: [
      {
        anchor: `${base}/.well-known/api-catalog`,
        item: apis.map((api) => ({ href: api.anchor as string })),
      },
      ...apis,
    ],
  };
}

const LinkTargetSchema = z.object({ href: z.url(), type: z.string().optional() }).loose();

/** The published shape of `buildApiCatalog()` (RFC 9264 §4.2), for the OpenAPI description. */
export const ApiCatalogSchema = z.object({
  linkset: z.array(
    z.object({
      anchor: z.url(),
      item: z.array(LinkTargetSchema).optional(),
      "service-desc": z.array(LinkTargetSchema).optional(),
      "service-doc": z.array(LinkTargetSchema).optional(),
      status: z.array(LinkTargetSchema).optional(),
    }).catchall(z.array(LinkTargetSchema)),
  ).min(1),
}).strict();

/** The `Link` value a HEAD (and GET) of the catalog answers with (RFC 9727 §2). */
export function apiCatalogLinkHeader(base: string): string {
  return `<${base}/.well-known/api-catalog>; rel="api-catalog"`;
}

// ---------------------------------------------------------------------------------------------
// Access terms and pricing (shared by the MCP manifest and, later, OpenAPI `x-access-terms`)

/** One step of the automated credential path (spec "Route A"); no step involves a person. */
export interface CredentialStep {
  step: number;
  summary: string;
  method: "POST";
  url: string;
  credential: string;
  body: Record<string, unknown>;
  yields: string;
  humanInvolved: false;
}

/** The access terms: who may call what, and the two ways to a credential. */
export function buildAccessTerms(base: string) {
  const credentialSteps: CredentialStep[] = [
    {
      step: 1,
      summary: "Create an account",
      method: "POST",
      url: `${base}/api/auth`,
      credential: "none",
      body: { action: "register", username: "<username>", password: "<password>" },
      yields: "sessionToken",
      humanInvolved: false,
    },
    {
      step: 2,
      summary: "Mint a read-scoped API token",
      method: "POST",
      url: `${base}/api/tokens`,
      credential: "Bearer <sessionToken>",
      body: { action: "create", name: "<name>", scopes: ["read"] },
      yields: `API token starting with ${prefixOf("apiToken")}`,
      humanInvolved: false,
    },
    {
      step: 3,
      summary: "Call tools with the token",
      method: "POST",
      url: `${base}/api/mcp`,
      credential: "Bearer <API token>",
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "list_columns", arguments: {} },
      },
      yields: "tool results over the account's own record",
      humanInvolved: false,
    },
  ];
  return {
    price: "free",
    openWithoutCredential: [
      "initialize, ping and tools/list on /api/mcp",
      "every method on /api/sandbox (synthetic data)",
      "healthCheck on /api/proxy",
      "every discovery document and documentation page",
    ],
    toolsCall: { credential: "Authorization: Bearer <token>", scopes: ["read"] },
    scopes: ["read"],
    signup: "open; a program can register, mint a token and call tools with no human step",
    credentialSteps,
    delegatedAccess: {
      summary: "Reading another member's record: OAuth 2.1 authorization code with PKCE (S256); " +
        "the member approves a consent screen, so this path needs a person.",
      protectedResourceMetadata: `${base}/.well-known/oauth-protected-resource`,
      authorizationServerMetadata: `${base}/.well-known/oauth-authorization-server`,
      registrationEndpoint: `${base}/api/oauth/register`,
      authorizationEndpoint: `${base}/api/oauth/authorize`,
      tokenEndpoint: `${base}/api/oauth/token`,
      codeChallengeMethods: ["S256"],
      clientTypes: ["public (token_endpoint_auth_method none)"],
      humanInvolved: true,
    },
    rateLimits: [
      RATE_LIMIT_POLICIES.mcp,
      RATE_LIMIT_POLICIES["mcp-meta"],
      RATE_LIMIT_POLICIES.sandbox,
    ]
      .map(({ name, q, w, keyedBy, governs }) => ({
        name,
        quota: q,
        windowSeconds: w,
        keyedBy,
        governs,
      })),
    documentation: `${base}/api`,
  };
}

/** Pricing terms (spec "What the service does" 7): access is free; money only deepens coaching. */
export function buildPricing(base: string) {
  return {
    currency: "USD",
    tracking: "free",
    api: "free",
    mcp: "free",
    plans: [
      {
        name: "free",
        price: 0,
        includes: ["tracking", "REST API", "MCP server (all 18 tools)", "API tokens", "OAuth apps"],
      },
      {
        name: "paid",
        price: 50,
        period: "year",
        changes: "how deeply the coach analyses the member's own history",
        doesNotChange: "what the API or the MCP server exposes",
      },
    ],
    documentation: `${base}/docs/membership`,
  };
}

// ---------------------------------------------------------------------------------------------
// MCP manifest (/.well-known/mcp.json)

/**
 * The card's `name` is reverse-DNS `namespace/name`; a self-hosted service's namespace is its own
 * host, reversed (`routine.example.com` → `com.example.routine`). IP addresses are not DNS names,
 * so they stay as they are.
 */
export function serverCardName(base: string): string {
  const host = new URL(base).hostname.replace(/^\[|\]$/g, "");
  const isIp = /^[\d.]+$/.test(host) || host.includes(":");
  const namespace = isIp ? host.replaceAll(":", "-") : host.split(".").reverse().join(".");
  return `${namespace}/routine-tracker`;
}

/**
 * The MCP manifest: the server-card fields of spec-anchors §8.7 (`$schema`, `name`, `version`,
 * `description` ≤ 100 characters, `title`, `websiteUrl`, `remotes`, `_meta`) plus what the spec
 * asks of this document: transport, endpoint, sandbox, revisions, the tool list from the registry
 * and the access terms. Pricing sits under `_meta["routine-tracker/pricing"]`.
 */
export function buildMcpManifest(base: string) {
  const endpoint = `${base}/api/mcp`;
  const sandbox = `${base}/api/sandbox`;
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: serverCardName(base),
    version: SERVICE_VERSION,
    title: SERVER_TITLE,
    description: "Read-only MCP access to a member's daily-routine health record: 18 tools.",
    websiteUrl: base,
    remotes: [
      {
        type: "streamable-http",
        url: endpoint,
        supportedProtocolVersions: [...SUPPORTED_REVISIONS],
      },
    ],
    transport: {
      type: "streamable-http",
      methods: ["POST"],
      sessions: "none (stateless; no Mcp-Session-Id)",
      responses: "application/json (no event stream)",
      aliases: [`${base}/api/v1/mcp`, `${base}/api/v1/sandbox`],
    },
    endpoint,
    sandbox: {
      endpoint: sandbox,
      credential: "none",
      data: "synthetic: a generated member, clock frozen at 2026-03-18; every response says so",
      syntheticMarkers: ["X-Data-Synthetic: true", '_meta["routine-tracker/synthetic"]: true'],
      documentation: `${base}/docs/sandbox`,
    },
    protocolRevisions: {
      supported: [...SUPPORTED_REVISIONS],
      viaInitialize: [...INITIALIZE_REVISIONS],
      perRequest: [...PER_REQUEST_REVISIONS],
    },
    // Result schemas stay in `tools/list`: they would make the manifest five times larger, and a
    // client choosing a server needs only what each tool takes and does.
    tools: TOOL_DESCRIPTORS.map(({ name, title, description, annotations }) => ({
      name,
      title,
      description,
      inputSchema: DOCUMENTED_INPUT_SCHEMAS.get(name),
      annotations,
    })),
    accessTerms: buildAccessTerms(base),
    documentation: {
      overview: `${base}/api`,
      mcp: `${base}/docs/mcp`,
      tools: `${base}/docs/mcp-tools`,
      llms: `${base}/llms.txt`,
    },
    _meta: {
      "routine-tracker/pricing": buildPricing(base),
      "routine-tracker/sandbox": { url: sandbox, credential: "none", synthetic: true },
    },
  };
}

/** The published shape of `buildMcpManifest()`, for the OpenAPI description. */
export const McpManifestSchema = z.object({
  $schema: z.url(),
  name: z.string(),
  version: z.string(),
  title: z.string(),
  description: z.string().max(100),
  websiteUrl: z.url(),
  remotes: z.array(
    z.object({
      type: z.literal("streamable-http"),
      url: z.url(),
      supportedProtocolVersions: z.array(z.string()),
    }).strict(),
  ).min(1),
  transport: z.object({ type: z.literal("streamable-http") }).loose(),
  endpoint: z.url(),
  sandbox: z.object({ endpoint: z.url(), credential: z.literal("none") }).loose(),
  protocolRevisions: z.object({
    supported: z.array(z.string()),
    viaInitialize: z.array(z.string()),
    perRequest: z.array(z.string()),
  }).strict(),
  tools: z.array(
    z.object({
      name: z.string(),
      title: z.string(),
      description: z.string(),
      inputSchema: z.object({ type: z.literal("object") }).loose(),
      annotations: z.object({ readOnlyHint: z.literal(true) }).loose(),
    }).strict(),
  ),
  accessTerms: z.object({
    credentialSteps: z.array(z.object({ humanInvolved: z.literal(false) }).loose()),
    delegatedAccess: z.object({ humanInvolved: z.literal(true) }).loose(),
  }).loose(),
  documentation: z.record(z.string(), z.url()),
  _meta: z.record(z.string(), z.unknown()),
}).strict();

// ---------------------------------------------------------------------------------------------
// llms.txt and llms-full.txt (https://llmstxt.org)

const LLMS_SUMMARY = "Read-only MCP server and REST API over a member's daily-routine health " +
  "record (sleep, steps, mood, workouts, medication): 18 read-only tools, a credential-free " +
  "sandbox on a synthetic member, API tokens any program can mint, and OAuth 2.1 (PKCE S256) " +
  "for reading someone else's record. Tracking, API and MCP access are free.";

function linkLine(title: string, url: string, notes: string): string {
  return notes ? `- [${title}](${url}): ${notes}` : `- [${title}](${url})`;
}

/**
 * `llms.txt`: H1, blockquote summary, a paragraph, then H2 file lists of `- [name](url): notes`
 * linking every page's `.md` twin; changelog and membership sit under `## Optional`.
 */
export function buildLlmsTxt(base: string, pages: readonly DocPage[]): string {
  const main = pages.filter((p) => !OPTIONAL_SLUGS.has(p.slug));
  const optional = pages.filter((p) => OPTIONAL_SLUGS.has(p.slug));
  const pageLine = (p: DocPage) => linkLine(p.title, `${base}/docs/${p.slug}.md`, p.description);
  return [
    "# Routine Tracker",
    "",
    `> ${LLMS_SUMMARY}`,
    "",
    `Try every tool first on the sandbox, \`POST ${base}/api/sandbox\` (MCP over HTTP, no ` +
    "credential; all data there is synthetic). Every page below is Markdown; the same pages are " +
    `served as HTML without the \`.md\`. The whole corpus in one file: ${base}/llms-full.txt.`,
    "",
    "## Docs",
    "",
    ...main.map(pageLine),
    "",
    "## Machine-readable documents",
    "",
    ...DISCOVERY_DOCUMENTS.filter((d) => d.path !== "/llms.txt").map((d) =>
      linkLine(d.title, `${base}${d.path}`, d.notes)
    ),
    linkLine(
      "Command-line client",
      `${base}${CLI_TARBALL_PATH}`,
      `npm tarball: npm install -g ${base}${CLI_TARBALL_PATH}`,
    ),
    "",
    "## Optional",
    "",
    ...optional.map(pageLine),
    "",
  ].join("\n");
}

/** `llms-full.txt`: the llms.txt heading and summary, then every page's Markdown inlined in order. */
export function buildLlmsFullTxt(base: string, pages: readonly DocPage[]): string {
  const parts = [
    "# Routine Tracker: full documentation",
    "",
    `> ${LLMS_SUMMARY}`,
    "",
    `Every documentation page of ${base}, in navigation order. Index: ${base}/llms.txt.`,
    "",
  ];
  for (const page of pages) {
    // Page bodies start with their own H1; the source line keeps each page citable.
    parts.push("---", "", `Source: ${base}/docs/${page.slug}.md`, "", page.markdown.trim(), "");
  }
  return parts.join("\n");
}
