/**
 * The OpenAPI 3.1 description served at `/openapi.json` and `/.well-known/openapi.json` (spec
 * "Discovery documents", DESIGN §11): exactly fifteen operations — the eight API endpoints and the
 * seven distinct discovery documents.
 *
 * Nothing here restates a shape by hand. Request and response schemas are converted from the zod
 * schemas the handlers parse with (or the output schemas next to the logic that builds each
 * response), tools come from the tool registry, the error-code enum from `ERROR_TABLE`, quotas
 * from `RATE_LIMIT_POLICIES`, the deprecation policy from lib/policy/deprecation.ts and the access terms
 * from lib/documents/discovery.ts. A change there changes the document; the contract test
 * (tests/http/openapi_contract_test.ts) sends real requests and checks the answers against it.
 * HTTP-free: lib/http/kernel/discovery_response.ts serves it.
 */

import { z } from "zod";
import { AUTH_RESPONSES, AuthRequest } from "../accounts/auth_messages.ts";
import { SCOPES } from "../accounts/api_tokens.ts";
import { prefixOf } from "../foundation/secrets.ts";
import { TOKENS_RESPONSES, TokensRequest } from "../accounts/token_messages.ts";
import { API_VERSION, SERVICE_VERSION } from "../foundation/config.ts";
import {
  DEPRECATIONS,
  MIN_DAYS_SUNSET_NOTICE,
  MIN_DAYS_TO_SUNSET_NOTICE,
} from "../policy/deprecation.ts";
import {
  API_CATALOG_CONTENT_TYPE,
  ApiCatalogSchema,
  buildAccessTerms,
  CLI_PACKAGE_NAME,
  CLI_TARBALL_PATH,
  McpManifestSchema,
} from "./discovery.ts";
import { ERROR_TABLE, type ErrorCode, ErrorEnvelope } from "../foundation/errors.ts";
import { HealthCheckRequest } from "../actions/health.ts";
import type { ActionSpec, ActionTable } from "../actions/action_table.ts";
import {
  JsonRpcErrorResponse,
  JsonRpcResultResponse,
  MCP_REQUESTS,
  McpNotification,
  ToolsCallResult,
} from "../mcp/messages.ts";
import { SUPPORTED_REVISIONS } from "../mcp/protocol.ts";
import { ClientMetadata } from "../oauth/clients.ts";
import {
  AuthorizationServerMetadata,
  AuthorizeQuery,
  ClientRegistrationResponse,
  OAuthErrorResponse,
  OAuthTokenResponse,
  ProtectedResourceMetadata,
} from "../oauth/messages.ts";
import { OAUTH_SCOPE } from "../oauth/metadata.ts";
import { TokenRequest as OAuthTokenRequest } from "../oauth/token.ts";
import { PROXY_ACTIONS } from "../actions/proxy_actions.ts";
import {
  AUTH_ENDPOINT,
  errorCodesOf,
  PROXY_ENDPOINT,
  TOKENS_ENDPOINT,
} from "../actions/endpoints.ts";
import { type PolicyName, RATE_LIMIT_POLICIES } from "../policy/rate_limit.ts";
import type { JsonSchema } from "../tools/json_schema.ts";
import { jsonSchemaOf as baseJsonSchemaOf, TOOLS } from "../tools/registry.ts";

/** Media type of the document (spec "Discovery documents"). */
export const OPENAPI_CONTENT_TYPE = "application/openapi+json";

/** The OpenAPI version the document is written in. */
export const OPENAPI_VERSION = "3.1.1";

/** The document's own shape, as the `GET /openapi.json` operation describes it. */
export const OpenApiDocumentSchema = z.object({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.object({ title: z.string(), version: z.string() }).loose(),
  servers: z.array(z.object({ url: z.url() }).loose()).min(1),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
  "x-access-terms": z.record(z.string(), z.unknown()),
  "x-ratelimit-policies": z.array(z.record(z.string(), z.unknown())),
  "x-deprecation-policy": z.record(z.string(), z.unknown()),
  "x-cli": z.object({ registryPublished: z.boolean() }).loose(),
}).loose();

// ---------------------------------------------------------------------------------------------
// zod → component schemas

/**
 * zod → JSON Schema 2020-12 (the dialect of OpenAPI 3.1), without `$schema`. Schemas that need
 * `$defs` would carry refs relative to themselves, which break once placed under `components`;
 * none does today, and a new one fails here rather than publishing dangling refs.
 */
function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const rest = baseJsonSchemaOf(schema, io);
  if ("$defs" in rest || JSON.stringify(rest).includes('"$ref"')) {
    throw new Error("openapi: a schema uses $defs/$ref; hoist them into components first");
  }
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `tree` with every subschema deep-equal to `target` replaced by `replacement`. */
function replaceSubschema(tree: unknown, target: JsonSchema, replacement: JsonSchema): unknown {
  const wanted = JSON.stringify(target);
  let replaced = 0;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    if (JSON.stringify(node) === wanted) {
      replaced++;
      return replacement;
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
  };
  const out = walk(tree);
  if (replaced === 0) throw new Error("openapi: subschema to replace not found");
  return out;
}

/** Adds `action: <name>` (required) to an object schema, or to each branch of a union. */
function withAction(schema: JsonSchema, name: string, description?: string): JsonSchema {
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key] as JsonSchema[] | undefined;
    if (branches) {
      return {
        ...(description ? { description } : {}),
        [key]: branches.map((b) => withAction(b, name)),
      };
    }
  }
  if (schema.type !== "object") throw new Error(`openapi: action ${name} is not an object`);
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = (schema.required ?? []) as string[];
  const { action: _action, ...fields } = properties;
  return {
    ...(description ? { description } : {}),
    ...schema,
    properties: { action: { type: "string", const: name }, ...fields },
    required: ["action", ...required.filter((r) => r !== "action")],
  };
}

/** An action-dispatched request body: one component per action and a discriminated `oneOf`. */
function actionUnion(
  schemas: Record<string, JsonSchema>,
  prefix: string,
  branches: Record<string, JsonSchema>,
): JsonSchema {
  const mapping: Record<string, string> = {};
  for (const [action, schema] of Object.entries(branches)) {
    schemas[`${prefix}_${action}`] = schema;
    mapping[action] = `#/components/schemas/${prefix}_${action}`;
  }
  return {
    oneOf: Object.keys(branches).map((a) => ref(`${prefix}_${a}`)),
    discriminator: { propertyName: "action", mapping },
  };
}

// ---------------------------------------------------------------------------------------------
// Headers and shared responses

const RATE_LIMIT_HEADER_NAMES = [
  "RateLimit",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
] as const;

function buildHeaders(base: string) {
  const integer = { type: "integer", minimum: 0 };
  return {
    "Api-Version": {
      description: 'The date of the last breaking change (spec "Versioning"); on every response.',
      required: true,
      schema: { type: "string", format: "date", const: API_VERSION },
    },
    Link: {
      description: "service-desc (this document), service-doc and version-history links; on " +
        'deprecated targets also rel="deprecation" and, once scheduled, rel="successor-version".',
      schema: { type: "string" },
      example: `<${base}/openapi.json>; rel="service-desc"; type="application/openapi+json", ` +
        `<${base}/api>; rel="service-doc", <${base}/docs/versioning>; rel="version-history"`,
    },
    "X-Request-Id": {
      description: "Identifies the request; the same value as `requestId` in error bodies.",
      required: true,
      schema: { type: "string" },
    },
    "RateLimit-Policy": {
      description: 'The governing policy: `"<name>";q=<quota>;w=<window seconds>` ' +
        "(see x-ratelimit-policies).",
      schema: { type: "string" },
      example: '"mcp";q=120;w=60',
    },
    RateLimit: {
      description: 'Sent when the request spent or read a quota: `"<name>";r=<remaining>;' +
        "t=<seconds until reset>`.",
      schema: { type: "string" },
      example: '"mcp";r=119;t=60',
    },
    "RateLimit-Limit": { description: "Legacy form: the quota.", schema: integer },
    "RateLimit-Remaining": { description: "Legacy form: requests left.", schema: integer },
    "RateLimit-Reset": { description: "Legacy form: delta-seconds until reset.", schema: integer },
    "Retry-After": {
      description: "On 429: seconds to wait before retrying (never earlier than `t`).",
      required: true,
      schema: { type: "integer", minimum: 1 },
    },
    "WWW-Authenticate": {
      description: "On a 401 from the REST API or /api/mcp (RFC 9110 §15.5.2), and on a 403 " +
        "from /api/mcp: a Bearer challenge (RFC 6750 §3). /api/mcp sends " +
        '`Bearer realm="routine-tracker-mcp", resource_metadata="…"` (plus ' +
        '`error="invalid_token"` or `error="insufficient_scope"`); the REST API ' +
        '`Bearer realm="routine-tracker"` (plus `error="invalid_token"` for a refused token).',
      required: true,
      schema: { type: "string" },
      example: `Bearer realm="routine-tracker-mcp", resource_metadata="${base}` +
        `/.well-known/oauth-protected-resource/api/mcp"`,
    },
    Deprecation: {
      description: "Only on deprecated targets: `@<epoch seconds>` (RFC 9745).",
      schema: { type: "string", pattern: "^@\\d+$" },
    },
    Sunset: {
      description: "Only once a retirement date is published: an HTTP-date (RFC 8594).",
      schema: { type: "string" },
    },
    ETag: { description: "Strong validator of the document.", schema: { type: "string" } },
    "X-Data-Synthetic": {
      description: "Always `true` on the sandbox: every value is generated.",
      required: true,
      schema: { type: "string", const: "true" },
    },
    Location: {
      description: "Where the browser goes next.",
      required: true,
      schema: { type: "string", format: "uri" },
    },
  };
}

type HeaderName = keyof ReturnType<typeof buildHeaders>;

/** The headers every response carries, plus `extra`. */
function headersOf(...extra: HeaderName[]) {
  const names: HeaderName[] = [
    "Api-Version",
    "Link",
    "X-Request-Id",
    "RateLimit-Policy",
    ...RATE_LIMIT_HEADER_NAMES,
    "Deprecation",
    "Sunset",
    ...extra,
  ];
  return Object.fromEntries(
    [...new Set(names)].map((n) => [n, { $ref: `#/components/headers/${n}` }]),
  );
}

function json(schema: JsonSchema, example?: unknown) {
  return {
    "application/json": example === undefined ? { schema } : { schema, example },
  };
}

/** Shared error responses (REST envelope, OAuth, JSON-RPC), by component name. */
function buildResponses() {
  const rest = (description: string, ...extra: HeaderName[]) => ({
    description,
    headers: headersOf(...extra),
    content: json(ref("ErrorEnvelope")),
  });
  const oauth = (description: string, ...extra: HeaderName[]) => ({
    description,
    headers: headersOf(...extra),
    content: json(ref("OAuthError")),
  });
  const rpc = (description: string, ...extra: HeaderName[]) => ({
    description,
    headers: headersOf(...extra),
    content: json(ref("JsonRpcErrorResponse")),
  });
  return {
    BadRequest: rest(
      "Invalid body or parameters (`invalid_request`, `invalid_json`, " +
        "`unknown_action`, `invalid_value`, …).",
    ),
    Unauthorized: rest(
      "No credential, or an unknown, expired or revoked one.",
      "WWW-Authenticate",
    ),
    Forbidden: rest(
      "The credential may not do this (`forbidden`, `insufficient_scope`, " +
        "`session_required`).",
    ),
    NotFound: rest("No such resource (e.g. a token or connected app id)."),
    Conflict: rest("`conflict`, `username_taken`, `too_many_tokens`, `column_exists`, …"),
    PayloadTooLarge: rest("The body is larger than the endpoint accepts."),
    UnsupportedMediaType: rest("Send the body as application/json."),
    Unprocessable: rest("`import_rejected`: CSV rows failed validation; nothing was written."),
    TooManyRequests: rest("A quota is spent (`rate_limited`).", "Retry-After"),
    InternalError: rest("An unexpected fault (`internal`); quote the requestId."),
    ServiceBusy: rest(
      "`service_busy`: storage stayed busy with concurrent changes, or did not answer within " +
        "`KV_DEADLINE_MS`; nothing was changed, unless the message says a change may or may " +
        "not have been saved (it timed out after being sent).",
      "Retry-After",
    ),
    StorageFull: rest(
      "`storage_full` (RFC 4918 §11.5): the service's disk is full; nothing was changed.",
    ),
    OAuthBadRequest: oauth(
      "RFC 6749 §5.2 / RFC 7591 §3.2.2 error (`invalid_request`, " +
        "`invalid_grant`, `invalid_redirect_uri`, `invalid_client_metadata`, `invalid_target`, …).",
    ),
    OAuthUnauthorized: oauth("`invalid_client`: unknown client_id, or a client_secret was sent."),
    OAuthTooManyRequests: oauth(
      "`temporarily_unavailable`: the oauth quota is spent.",
      "Retry-After",
    ),
    RpcBadRequest: rpc(
      "Parse error (-32700), invalid request (-32600), or an unsupported " +
        "MCP-Protocol-Version (-32600 / -32022 with `data.supported`).",
    ),
    RpcUnauthorized: rpc(
      "tools/call without a valid credential (`data.code`: `unauthorized`, `invalid_token`).",
      "WWW-Authenticate",
    ),
    RpcForbidden: rpc(
      "Origin not allowed (DNS-rebinding protection), or the token lacks `read` " +
        "(`insufficient_scope`, with WWW-Authenticate).",
    ),
    RpcNotAcceptable: rpc("The client does not accept application/json."),
    RpcUnsupportedMediaType: rpc("Send the message as application/json."),
    RpcTooManyRequests: rpc("A quota is spent (`data.code`: `rate_limited`).", "Retry-After"),
  };
}

// ---------------------------------------------------------------------------------------------
// Operations

function rpcResponses(sandbox: boolean) {
  const synthetic: HeaderName[] = sandbox ? ["X-Data-Synthetic"] : [];
  return {
    "200": {
      description: "A JSON-RPC response: `result` (depends on the method) or `error`. Tool " +
        "failures are results with `isError: true`.",
      headers: headersOf(...synthetic),
      content: json(ref("McpResponse")),
    },
    "202": {
      description: "A notification (no `id`) was accepted; no body.",
      headers: headersOf(...synthetic),
    },
    "400": { $ref: "#/components/responses/RpcBadRequest" },
    ...(sandbox ? {} : { "401": { $ref: "#/components/responses/RpcUnauthorized" } }),
    "403": { $ref: "#/components/responses/RpcForbidden" },
    "406": { $ref: "#/components/responses/RpcNotAcceptable" },
    "415": { $ref: "#/components/responses/RpcUnsupportedMediaType" },
    "429": { $ref: "#/components/responses/RpcTooManyRequests" },
  };
}

const rpcExamples = {
  initialize: {
    summary: "Handshake",
    value: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "example-client", version: "1.0.0" },
      },
    },
  },
  toolsList: {
    summary: "List the tools",
    value: { jsonrpc: "2.0", id: 2, method: "tools/list" },
  },
  toolsCall: {
    summary: "Call get_streak",
    value: {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "get_streak", arguments: { metric: "steps" } },
    },
  },
};

function mcpOperation(base: string, sandbox: boolean) {
  const toolRefs = TOOLS.map((t) => `\`${t.name}\` (Tool_${t.name}_Input → Tool_${t.name}_Output)`)
    .join(", ");
  return {
    operationId: sandbox ? "callSandbox" : "callMcp",
    tags: [sandbox ? "Sandbox" : "MCP"],
    summary: sandbox
      ? "MCP server on a synthetic member (no credential)"
      : "MCP server over the caller's own record",
    description:
      (sandbox
        ? "The same protocol, tools, schemas and envelopes as POST /api/mcp, on a generated " +
          "member; no credential ever. Every response is marked synthetic (`X-Data-Synthetic: " +
          'true`, `_meta["routine-tracker/synthetic"]`, `data.synthetic` on errors).\n\n'
        : "MCP Streamable HTTP, stateless, JSON responses, one JSON-RPC message per POST. " +
          "`initialize`, `ping` and `tools/list` need no credential; `tools/call` needs a Bearer " +
          `API token (\`${prefixOf("apiToken")}…\`) or an OAuth access token with scope ` +
          "`read`. Without one it " +
          "answers 401 with `WWW-Authenticate` naming the protected-resource metadata.\n\n") +
      `Revisions: ${SUPPORTED_REVISIONS.join(", ")}. Tools and their argument and result ` +
      `schemas (components.schemas): ${toolRefs}.`,
    security: sandbox ? [] : [{}, { apiToken: [] }, { oauth2: [OAUTH_SCOPE] }],
    "x-ratelimit-policy": sandbox ? ["sandbox"] : ["mcp", "mcp-meta"],
    "x-tool-schemas": Object.fromEntries(TOOLS.map((t) => [t.name, {
      input: ref(`Tool_${t.name}_Input`),
      output: ref(`Tool_${t.name}_Output`),
    }])),
    externalDocs: { url: `${base}/docs/${sandbox ? "sandbox" : "mcp"}` },
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: { oneOf: [ref("McpRequest"), ref("McpNotification")] },
          examples: rpcExamples,
        },
      },
    },
    responses: rpcResponses(sandbox),
  };
}

function restOperation(spec: {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security: unknown[];
  policy: PolicyName;
  request: string;
  examples: Record<string, { summary: string; value: unknown }>;
  success: Record<string, { description: string; schema: JsonSchema }>;
  /** Every error code the operation can answer with (lib/actions/endpoints.ts `errorCodesOf`). */
  errors: ErrorCode[];
  docs: string;
  /** The endpoint's actions: those marked `idempotent` document the `Idempotency-Key` header. */
  actions?: ActionTable;
}) {
  const responses: Record<string, unknown> = {};
  for (const [status, s] of Object.entries(spec.success)) {
    responses[status] = {
      description: s.description,
      headers: headersOf(),
      content: json(s.schema),
    };
  }
  const shared: Record<string, string> = {
    "400": "BadRequest",
    "401": "Unauthorized",
    "403": "Forbidden",
    "404": "NotFound",
    "409": "Conflict",
    "413": "PayloadTooLarge",
    "415": "UnsupportedMediaType",
    "422": "Unprocessable",
    "429": "TooManyRequests",
    "500": "InternalError",
    "503": "ServiceBusy",
    "507": "StorageFull",
  };
  // Each code the operation can answer with names its status (ERROR_TABLE); one response per status.
  const statuses = [...new Set(spec.errors.map((code) => String(ERROR_TABLE[code].status)))].sort();
  for (const status of statuses) {
    // A status the operation documents as a success (healthCheck's 503) keeps that description.
    if (responses[status]) continue;
    if (!shared[status]) throw new Error(`No shared error response for status ${status}.`);
    responses[status] = { $ref: `#/components/responses/${shared[status]}` };
  }
  return {
    operationId: spec.operationId,
    tags: spec.tags,
    summary: spec.summary,
    description: spec.description,
    security: spec.security,
    "x-ratelimit-policy": [spec.policy],
    externalDocs: { url: spec.docs },
    ...idempotencyParameters(spec.actions ?? {}),
    requestBody: {
      required: true,
      content: { "application/json": { schema: ref(spec.request), examples: spec.examples } },
    },
    responses,
  };
}

/**
 * The optional `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header §2) of
 * an endpoint with `idempotent` actions, naming them: read from the action registry, so the
 * document says exactly which actions apply a change under one key once
 * (lib/http/kernel/action_endpoint.ts `idempotencyKeyOf`, the same 1–128 visible ASCII characters).
 */
function idempotencyParameters(actions: ActionTable) {
  const names = Object.keys(actions).filter((name) => actions[name].idempotent);
  if (names.length === 0) return {};
  const listed = names.map((n) => `\`${n}\``).join(" and ");
  return {
    parameters: [{
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: `Honoured by ${listed}: the first request under a key is applied; a later one ` +
        "under the same key (a retry after a lost answer) changes nothing, on every instance: a " +
        "record change answers the first one's result for 30 days, a token `create` answers 409 " +
        "`already_created` (never the secret again) for 24 hours. 1 to 128 visible ASCII characters, quoted " +
        "(an RFC 8941 String) or not; a UUID is a good key. Malformed: 400 `invalid_request`. " +
        "Other actions ignore it.",
      schema: { type: "string", pattern: '^(?:"[!#-\\[\\]-~]{1,128}"|[!#-~]{1,128})$' },
      example: "5f0c6a8e-1b7d-4c52-9a0e-3d2f1e4b7c90",
    }],
  };
}

/** Per-action response schemas as `anyOf` (two actions may answer the same shape). */
function actionResponses(
  schemas: Record<string, JsonSchema>,
  prefix: string,
  outputs: Record<string, z.ZodType>,
): { anyOf: JsonSchema[] } {
  for (const [action, output] of Object.entries(outputs)) {
    schemas[`${prefix}_${action}`] = jsonSchemaOf(output, "output");
  }
  return { anyOf: Object.keys(outputs).map((a) => ref(`${prefix}_${a}`)) };
}

function discoveryOperation(spec: {
  operationId: string;
  summary: string;
  description: string;
  contentType: string;
  schema: JsonSchema;
  cached: boolean;
}) {
  const responses: Record<string, unknown> = {
    "200": {
      description: spec.summary,
      headers: headersOf(...(spec.cached ? ["ETag" as const] : [])),
      content: { [spec.contentType]: { schema: spec.schema } },
    },
  };
  if (spec.cached) {
    responses["304"] = {
      description: "Not modified: the `If-None-Match` ETag is current.",
      headers: headersOf("ETag"),
    };
  }
  responses["429"] = { $ref: "#/components/responses/TooManyRequests" };
  return {
    operationId: spec.operationId,
    tags: ["Discovery"],
    summary: spec.summary,
    description: spec.description,
    security: [],
    "x-ratelimit-policy": ["public"],
    responses,
  };
}

// ---------------------------------------------------------------------------------------------
// Extension blocks

/** `x-ratelimit-policies`: the complete quota table of lib/policy/rate_limit.ts. */
export function rateLimitPolicyTable() {
  return Object.values(RATE_LIMIT_POLICIES).map(({ name, q, w, keyedBy, governs }) => ({
    name,
    quota: q,
    windowSeconds: w,
    keyedBy,
    governs,
    header: `"${name}";q=${q};w=${w}`,
  }));
}

/** `x-deprecation-policy`: the lifecycle, its notice periods, header formats and the registry. */
export function deprecationPolicy(base: string) {
  return {
    states: ["active", "deprecated", "sunset-scheduled", "retired"],
    minDaysFromDeprecationToSunsetNotice: MIN_DAYS_TO_SUNSET_NOTICE,
    minDaysFromSunsetNoticeToSunset: MIN_DAYS_SUNSET_NOTICE,
    headers: {
      deprecation: "Deprecation: @<epoch seconds> (RFC 9745 structured-field date)",
      deprecationLink: `Link: <${base}/docs/versioning>; rel="deprecation"; type="text/html"`,
      sunset: "Sunset: <HTTP-date> (RFC 8594; IMF-fixdate, GMT)",
      successorLink: 'Link: <{replacement_url}>; rel="successor-version"',
    },
    retiredStatus: 410,
    retiredCode: "gone",
    apiVersionHeader: "Api-Version",
    currentApiVersion: API_VERSION,
    deprecated: DEPRECATIONS.map((d) => ({ ...d })),
    documentation: `${base}/docs/versioning`,
    changelog: `${base}/docs/changelog`,
  };
}

/** `x-cli`: the command-line client, served as an npm tarball (not on a registry). */
export function cliTerms(base: string) {
  const tarballUrl = `${base}${CLI_TARBALL_PATH}`;
  return {
    package: CLI_PACKAGE_NAME,
    executable: "routine-tracker",
    registryPublished: false,
    tarballUrl,
    install: `npm install -g ${tarballUrl}`,
    commands: ["discover", "init", "tools", "call <tool_name> <param>=<value>"],
    documentation: `${base}/docs/cli`,
  };
}

// ---------------------------------------------------------------------------------------------
// The document

/** Every component schema: errors, MCP, the action endpoints, OAuth and discovery documents. */
function componentSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  // Errors.
  schemas.ErrorEnvelope = jsonSchemaOf(ErrorEnvelope, "output");
  schemas.OAuthError = jsonSchemaOf(OAuthErrorResponse, "output");

  addMcpSchemas(schemas);
  addActionSchemas(schemas);
  // OAuth.
  schemas.ClientMetadata = jsonSchemaOf(ClientMetadata, "input");
  schemas.ClientRegistrationResponse = jsonSchemaOf(ClientRegistrationResponse, "output");
  schemas.OAuthTokenRequest = jsonSchemaOf(OAuthTokenRequest, "input");
  schemas.OAuthTokenResponse = jsonSchemaOf(OAuthTokenResponse, "output");

  // Discovery documents.
  schemas.OpenApiDocument = jsonSchemaOf(OpenApiDocumentSchema, "output");
  schemas.ApiCatalog = jsonSchemaOf(ApiCatalogSchema, "output");
  schemas.McpManifest = jsonSchemaOf(McpManifestSchema, "output");
  schemas.ProtectedResourceMetadata = jsonSchemaOf(ProtectedResourceMetadata, "output");
  schemas.AuthorizationServerMetadata = jsonSchemaOf(AuthorizationServerMetadata, "output");
  schemas.PlainText = { type: "string", minLength: 1 };

  return schemas;
}

/**
 * MCP: JSON-RPC envelopes, typed per tool from the registry: `tools/call` params are one branch
 * per tool (its name and `Tool_<name>_Input`), and its result's structuredContent is one of the
 * `Tool_<name>_Output` schemas.
 */
function addMcpSchemas(schemas: Record<string, JsonSchema>): void {
  for (const tool of TOOLS) {
    schemas[`Tool_${tool.name}_Input`] = jsonSchemaOf(tool.input, "input");
    schemas[`Tool_${tool.name}_Output`] = jsonSchemaOf(tool.output, "output");
  }
  const rpcMapping: Record<string, string> = {};
  for (const [method, schema] of Object.entries(MCP_REQUESTS)) {
    const name = `McpRequest_${method.replaceAll("/", "_")}`;
    schemas[name] = jsonSchemaOf(schema, "input");
    rpcMapping[method] = `#/components/schemas/${name}`;
  }
  const callRequest = schemas["McpRequest_tools_call"];
  const callParams = (callRequest.properties as Record<string, JsonSchema>).params;
  const paramProps = callParams.properties as Record<string, JsonSchema>;
  callRequest.properties = {
    ...(callRequest.properties as Record<string, JsonSchema>),
    params: {
      description: "The tool's name and arguments; `arguments` follows `Tool_<name>_Input`.",
      oneOf: TOOLS.map((t) => ({
        ...callParams,
        properties: {
          ...paramProps,
          name: { type: "string", const: t.name },
          arguments: ref(`Tool_${t.name}_Input`),
        },
      })),
    },
  };
  schemas.McpRequest = {
    description: "A JSON-RPC 2.0 request; `params` depends on `method`.",
    oneOf: Object.values(rpcMapping).map(($ref) => ({ $ref })),
    discriminator: { propertyName: "method", mapping: rpcMapping },
  };
  schemas.McpNotification = jsonSchemaOf(McpNotification, "input");
  const callResult = jsonSchemaOf(ToolsCallResult, "output");
  schemas.McpToolsCallResult = {
    ...callResult,
    properties: {
      ...(callResult.properties as Record<string, JsonSchema>),
      structuredContent: {
        description: "The tool's result, `Tool_<name>_Output` of the tool called (absent when " +
          "isError is true).",
        anyOf: TOOLS.map((t) => ref(`Tool_${t.name}_Output`)),
      },
    },
  };
  schemas.JsonRpcResultResponse = replaceSubschema(
    jsonSchemaOf(JsonRpcResultResponse, "output"),
    callResult,
    ref("McpToolsCallResult"),
  ) as JsonSchema;
  schemas.JsonRpcErrorResponse = jsonSchemaOf(JsonRpcErrorResponse, "output");
  schemas.McpResponse = {
    oneOf: [ref("JsonRpcResultResponse"), ref("JsonRpcErrorResponse")],
  };
}

/** The request unions and per-action results of /api/proxy, /api/auth and /api/tokens. */
function addActionSchemas(schemas: Record<string, JsonSchema>): void {
  // /api/proxy: healthCheck plus every member action, from PROXY_ACTIONS.
  const proxyRequests: Record<string, JsonSchema> = {};
  const proxyOutputs: Record<string, z.ZodType> = {};
  for (const [action, spec] of Object.entries(PROXY_ACTIONS) as [string, ActionSpec][]) {
    proxyOutputs[action] = spec.output;
    if (action === "healthCheck") {
      proxyRequests[action] = jsonSchemaOf(HealthCheckRequest, "input");
      continue;
    }
    proxyRequests[action] = withAction(
      jsonSchemaOf(spec.input, "input"),
      action,
      spec.writes ? "Changes the record: needs a session token." : undefined,
    );
  }
  schemas.ProxyRequest = actionUnion(schemas, "ProxyRequest", proxyRequests);
  schemas.ProxyResponse = actionResponses(schemas, "ProxyResult", proxyOutputs);
  schemas.HealthReport = ref("ProxyResult_healthCheck");

  // /api/auth and /api/tokens: the discriminated unions the routes parse with.
  const branchesOf = (union: { options: readonly z.ZodType[] }) =>
    Object.fromEntries(union.options.map((o) => {
      const s = jsonSchemaOf(o, "input");
      return [(s.properties as Record<string, { const: string }>).action.const, s];
    }));
  schemas.AuthRequest = actionUnion(schemas, "AuthRequest", branchesOf(AuthRequest));
  schemas.AuthResponse = actionResponses(schemas, "AuthResult", AUTH_RESPONSES);
  schemas.TokensRequest = actionUnion(schemas, "TokensRequest", branchesOf(TokensRequest));
  schemas.TokensResponse = actionResponses(schemas, "TokensResult", TOKENS_RESPONSES);
}

/** Tag MCP and Sandbox: the two JSON-RPC endpoints. */
function mcpPaths(base: string) {
  return {
    "/api/mcp": { post: mcpOperation(base, false) },
    "/api/sandbox": { post: mcpOperation(base, true) },
  };
}

/** Which response schema answers which action (machine-readable, beside the anyOf). */
function perAction(prefix: string, table: Record<string, unknown>) {
  return Object.fromEntries(Object.keys(table).map((a) => [a, ref(`${prefix}_${a}`)]));
}

/** Tag Data: the web app's data API. */
function dataPaths(base: string) {
  return {
    "/api/proxy": {
      post: {
        ...restOperation({
          operationId: "callProxyAction",
          tags: ["Data"],
          summary: "The web app's data API, dispatching on `action`",
          description: "`healthCheck` needs no credential. Every other action needs a Bearer " +
            "token: an API token (read-only: reading actions) or a session token (every action). " +
            "The request schema has one branch per action (discriminator `action`); the response " +
            "of action X is `ProxyResult_X` (see `x-action-responses`). Unknown actions answer 400 " +
            "`unknown_action` listing the actions.",
          security: [{}, { apiToken: [] }, { session: [] }],
          policy: PROXY_ENDPOINT.policy,
          actions: PROXY_ENDPOINT.actions,
          request: "ProxyRequest",
          examples: {
            healthCheck: {
              summary: "Health check (no credential)",
              value: { action: "healthCheck" },
            },
            getEntries: {
              summary: "Read a week of entries",
              value: { action: "getEntries", start: "2026-03-01", end: "2026-03-07" },
            },
            callTool: {
              summary: "Run a tool on the caller's record",
              value: { action: "callTool", name: "get_streak", arguments: { metric: "steps" } },
            },
          },
          success: {
            "200": {
              description: "The action's result (`ProxyResult_<action>`).",
              schema: ref("ProxyResponse"),
            },
            "503": {
              description: "healthCheck: storage is not reachable (status unhealthy).",
              schema: ref("HealthReport"),
            },
          },
          errors: errorCodesOf(PROXY_ENDPOINT),
          docs: `${base}/api`,
        }),
        "x-action-responses": perAction("ProxyResult", PROXY_ACTIONS),
      },
    },
  };
}

/** Tag Accounts: sign-in and API tokens. */
function accountPaths(base: string) {
  return {
    "/api/auth": {
      post: {
        ...restOperation({
          operationId: "callAuthAction",
          tags: ["Accounts"],
          summary:
            "Register, sign in, sign out, describe the session, change password, delete account",
          description: "`register` (201) and `login` need no credential and answer a session " +
            `token (\`${prefixOf("session")}…\`, field \`sessionToken\`); \`logout\`, ` +
            "`session`, `changePassword` (signs out every other session) and `deleteAccount` " +
            "(confirmed by the username) need that token as Bearer. The response of action X is " +
            "`AuthResult_X`.",
          security: [{}, { session: [] }],
          policy: AUTH_ENDPOINT.policy,
          request: "AuthRequest",
          examples: {
            register: {
              summary: "Create an account (Route A, step 1)",
              value: { action: "register", username: "ada_l", password: "correct horse battery" },
            },
            session: { summary: "Who am I", value: { action: "session" } },
            changePassword: {
              summary: "Change the password; every other session is signed out",
              value: {
                action: "changePassword",
                currentPassword: "correct horse battery",
                newPassword: "another long passphrase",
              },
            },
            deleteAccount: {
              summary: "Delete the account and everything of it",
              value: { action: "deleteAccount", confirmUsername: "ada_l" },
            },
          },
          success: {
            "200": {
              description: "login, logout, session, changePassword or deleteAccount.",
              schema: ref("AuthResponse"),
            },
            "201": {
              description: "register: the account exists and is signed in.",
              schema: ref("AuthResult_register"),
            },
          },
          errors: errorCodesOf(AUTH_ENDPOINT),
          docs: `${base}/docs/authentication`,
        }),
        "x-action-responses": perAction("AuthResult", AUTH_RESPONSES),
      },
    },
    "/api/tokens": {
      post: {
        ...restOperation({
          operationId: "callTokensAction",
          tags: ["Accounts"],
          summary: "Mint, list and revoke the caller's API tokens",
          description: "Needs a signed-in session as Bearer (an API token cannot mint tokens: " +
            `403 \`session_required\`). \`create\` answers the token string (\`${
              prefixOf("apiToken")
            }…\`) ` +
            "once; `list` never shows it; `revoke` takes effect immediately. The response of " +
            "action X is `TokensResult_X`.",
          security: [{ session: [] }],
          policy: TOKENS_ENDPOINT.policy,
          request: "TokensRequest",
          examples: {
            create: {
              summary: "Mint a read token (Route A, step 2)",
              value: { action: "create", name: "my agent", scopes: [...SCOPES] },
            },
            list: { summary: "List tokens", value: { action: "list" } },
          },
          success: {
            "200": { description: "list or revoke.", schema: ref("TokensResponse") },
            "201": { description: "create: the new token.", schema: ref("TokensResult_create") },
          },
          errors: errorCodesOf(TOKENS_ENDPOINT),
          docs: `${base}/docs/token-scripts`,
        }),
        "x-action-responses": perAction("TokensResult", TOKENS_RESPONSES),
      },
    },
  };
}

/** The browser's authorization endpoint: its query parameters come from the zod schema. */
function authorizeOperation() {
  const authorizeQuery = jsonSchemaOf(AuthorizeQuery, "input");
  const queryProps = authorizeQuery.properties as Record<string, JsonSchema>;
  const queryRequired = new Set(authorizeQuery.required as string[]);
  const html = { "text/html": { schema: { type: "string" } } };

  return {
    operationId: "authorizeOAuthClient",
    tags: ["OAuth"],
    summary: "Authorization endpoint: sign-in and consent (browser)",
    description: "Opened in the member's browser. Answers the sign-in page (signed out) or " +
      "the consent screen (signed in); approval redirects to `redirect_uri` with `code`, " +
      "`state` and `iss` (RFC 9207). PKCE S256 is required; `plain` is refused. Errors " +
      "about the client or redirect URI are shown as a page and never redirected; others " +
      "redirect with `error`. This step needs a person.",
    security: [],
    "x-ratelimit-policy": ["oauth"],
    parameters: Object.entries(queryProps).map(([name, schema]) => {
      const { description, ...rest } = schema;
      return {
        name,
        in: "query",
        required: queryRequired.has(name),
        description: description ?? name,
        schema: rest,
      };
    }),
    responses: {
      "200": {
        description: "The sign-in page or the consent screen (HTML).",
        headers: headersOf(),
        content: html,
      },
      "302": {
        description: "Back to the client's redirect URI with `error`, `state` and `iss`.",
        headers: headersOf("Location"),
      },
      "400": {
        description: "Unknown client or redirect URI: an error page, not a redirect.",
        headers: headersOf(),
        content: html,
      },
      "429": {
        description: "The oauth quota is spent.",
        headers: headersOf("Retry-After"),
        content: html,
      },
    },
  };
}

/** Tag OAuth: registration, the browser's authorization endpoint and the token endpoint. */
function oauthPaths() {
  return {
    "/api/oauth/register": {
      post: {
        operationId: "registerOAuthClient",
        tags: ["OAuth"],
        summary: "Register a public OAuth client (RFC 7591)",
        description: "Open dynamic client registration, no credential. Public clients only " +
          "(`token_endpoint_auth_method: none`, no secret). Redirect URIs: https, or http on " +
          "loopback (port 1–65535); no fragments. A client that never completes an " +
          "authorization expires after 24 hours; one with a grant is kept. A valid " +
          "registration also spends the `oauth-register` quota (10 an hour per address).",
        security: [],
        "x-ratelimit-policy": ["oauth", "oauth-register"],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: ref("ClientMetadata"),
              example: {
                client_name: "Example agent",
                redirect_uris: ["http://127.0.0.1:8976/callback"],
                grant_types: ["authorization_code", "refresh_token"],
                response_types: ["code"],
                token_endpoint_auth_method: "none",
              },
            },
          },
        },
        responses: {
          "201": {
            description: "Registered.",
            headers: headersOf(),
            content: json(ref("ClientRegistrationResponse")),
          },
          "400": { $ref: "#/components/responses/OAuthBadRequest" },
          "429": { $ref: "#/components/responses/OAuthTooManyRequests" },
        },
      },
    },
    "/api/oauth/authorize": { get: authorizeOperation() },
    "/api/oauth/token": {
      post: {
        operationId: "exchangeOAuthToken",
        tags: ["OAuth"],
        summary: "Token endpoint: authorization_code and refresh_token grants",
        description: "Form-encoded (RFC 6749 §3.2) or JSON. `authorization_code` needs `code`, " +
          "`code_verifier` (PKCE), `redirect_uri` and `client_id`; `refresh_token` rotates the " +
          "refresh token, and reuse of a spent one revokes the grant. `Cache-Control: no-store`.",
        security: [],
        "x-ratelimit-policy": ["oauth"],
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": { schema: ref("OAuthTokenRequest") },
            "application/json": {
              schema: ref("OAuthTokenRequest"),
              example: {
                grant_type: "authorization_code",
                code: `${prefixOf("authorizationCode")}…`,
                code_verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
                redirect_uri: "http://127.0.0.1:8976/callback",
                client_id: "client_…",
              },
            },
          },
        },
        responses: {
          "200": {
            description: "Tokens (RFC 6749 §5.1).",
            headers: headersOf(),
            content: json(ref("OAuthTokenResponse")),
          },
          "400": { $ref: "#/components/responses/OAuthBadRequest" },
          "401": { $ref: "#/components/responses/OAuthUnauthorized" },
          "429": { $ref: "#/components/responses/OAuthTooManyRequests" },
        },
      },
    },
  };
}

/** Tag Discovery: the published documents. */
function discoveryPaths() {
  return {
    "/openapi.json": {
      get: discoveryOperation({
        operationId: "getOpenApiDocument",
        summary: "This OpenAPI 3.1 description",
        description: "Also served at /.well-known/openapi.json (the same document).",
        contentType: OPENAPI_CONTENT_TYPE,
        schema: ref("OpenApiDocument"),
        cached: true,
      }),
    },
    "/.well-known/api-catalog": {
      get: discoveryOperation({
        operationId: "getApiCatalog",
        summary: "RFC 9727 API catalog",
        description: "A linkset naming every API with its service-desc, service-doc and status " +
          '(the health check). HEAD answers with `Link: …; rel="api-catalog"`.',
        contentType: API_CATALOG_CONTENT_TYPE,
        schema: ref("ApiCatalog"),
        cached: true,
      }),
    },
    "/.well-known/mcp.json": {
      get: discoveryOperation({
        operationId: "getMcpManifest",
        summary: "MCP manifest (server card)",
        description: "Transport, endpoint, sandbox, protocol revisions, tools, access terms and " +
          "pricing. Also served at /mcp.json.",
        contentType: "application/json",
        schema: ref("McpManifest"),
        cached: true,
      }),
    },
    "/.well-known/oauth-protected-resource": {
      get: discoveryOperation({
        operationId: "getProtectedResourceMetadata",
        summary: "RFC 9728 protected-resource metadata",
        description: "For the MCP endpoint; path-inserted variants " +
          "(/.well-known/oauth-protected-resource/api/mcp) answer the same shape.",
        contentType: "application/json",
        schema: ref("ProtectedResourceMetadata"),
        cached: false,
      }),
    },
    "/.well-known/oauth-authorization-server": {
      get: discoveryOperation({
        operationId: "getAuthorizationServerMetadata",
        summary: "RFC 8414 authorization-server metadata",
        description: "Endpoints, PKCE S256, dynamic registration, public clients only.",
        contentType: "application/json",
        schema: ref("AuthorizationServerMetadata"),
        cached: false,
      }),
    },
    "/llms.txt": {
      get: discoveryOperation({
        operationId: "getLlmsTxt",
        summary: "Documentation index for language models",
        description: "llmstxt.org format: every docs page's Markdown twin and the machine-" +
          "readable documents.",
        contentType: "text/plain",
        schema: ref("PlainText"),
        cached: true,
      }),
    },
    "/llms-full.txt": {
      get: discoveryOperation({
        operationId: "getLlmsFullTxt",
        summary: "Full documentation corpus",
        description: "Every documentation page inlined in one text file.",
        contentType: "text/plain",
        schema: ref("PlainText"),
        cached: true,
      }),
    },
  };
}

/** How a caller proves who it is: API token, session token, OAuth 2.1. */
function securitySchemes(base: string) {
  return {
    apiToken: {
      type: "http",
      scheme: "bearer",
      bearerFormat: `${prefixOf("apiToken")}…`,
      description: "A read-scoped API token minted with POST /api/tokens (action create). " +
        "Scopes are stored server-side; the only scope is `read`.",
    },
    session: {
      type: "http",
      scheme: "bearer",
      bearerFormat: `${prefixOf("session")}…`,
      description: "The session token from POST /api/auth (register or login).",
    },
    oauth2: {
      type: "oauth2",
      description: "OAuth 2.1 authorization code with PKCE (S256 only; plain refused), " +
        "public clients registered at POST /api/oauth/register. A person approves consent.",
      flows: {
        authorizationCode: {
          authorizationUrl: `${base}/api/oauth/authorize`,
          tokenUrl: `${base}/api/oauth/token`,
          refreshUrl: `${base}/api/oauth/token`,
          scopes: { [OAUTH_SCOPE]: "Read the member's record through the MCP tools." },
          "x-code-challenge-methods": ["S256"],
        },
      },
    },
  };
}

/**
 * Builds the OpenAPI 3.1 document for `base` (the configured BASE_URL).
 *
 * @param base public base URL, no trailing slash
 * @example
 * ```ts
 * const doc = buildOpenApiDocument("https://routine.example.com");
 * doc.servers[0].url; // "https://routine.example.com"
 * ```
 */
export function buildOpenApiDocument(base: string) {
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: "Routine Tracker API",
      version: SERVICE_VERSION,
      summary: "Read-only MCP server and REST API over a member's daily-routine health record.",
      description: "Eighteen read-only tools over MCP (`/api/mcp`), the same on a synthetic " +
        "member with no credential (`/api/sandbox`), the web app's REST endpoints, API tokens " +
        "any program can mint (see `x-access-terms`), OAuth 2.1 with PKCE for reading someone " +
        `else's record, and the discovery documents. Every response carries \`Api-Version: ` +
        `${API_VERSION}\`. \`/api/v1/*\` routes to the same handlers as \`/api/*\`.`,
      license: { name: "MIT", url: "https://spdx.org/licenses/MIT.html" },
      contact: { name: "Routine Tracker developers", url: `${base}/api` },
      "x-api-version": API_VERSION,
    },
    servers: [{ url: base, description: "This instance (its configured BASE_URL)." }],
    externalDocs: { description: "Developer overview", url: `${base}/api` },
    tags: [
      { name: "MCP", description: "The MCP server over the caller's own record." },
      { name: "Sandbox", description: "The MCP server on a synthetic member; no credential." },
      { name: "Data", description: "The web app's data API (`action` dispatch)." },
      { name: "Accounts", description: "Accounts, sessions and API tokens (Route A)." },
      { name: "OAuth", description: "OAuth 2.1 with PKCE for delegated access (Route B)." },
      { name: "Discovery", description: "Machine-readable documents; no credential." },
    ],
    paths: {
      ...mcpPaths(base),
      ...dataPaths(base),
      ...accountPaths(base),
      ...oauthPaths(),
      ...discoveryPaths(),
    },
    components: {
      schemas: componentSchemas(),
      headers: buildHeaders(base),
      responses: buildResponses(),
      securitySchemes: securitySchemes(base),
    },
    "x-access-terms": buildAccessTerms(base),
    "x-ratelimit-policies": rateLimitPolicyTable(),
    "x-deprecation-policy": deprecationPolicy(base),
    "x-cli": cliTerms(base),
  };
}
