/**
 * Zod schemas of the JSON-RPC 2.0 messages `/api/mcp` and `/api/sandbox` exchange (MCP
 * basic §Messages, server/tools). The engine (server.ts) reads messages field by field, because
 * MCP assigns a different JSON-RPC error to each kind of malformation; these schemas describe the
 * well-formed requests it accepts and the responses it writes, for the OpenAPI description, and the
 * contract test checks real responses against them.
 */

import { z } from "zod";
import { TOOLS } from "../tools/registry.ts";
import { INITIALIZE_REVISIONS, RPC, SUPPORTED_REVISIONS } from "./protocol.ts";

const JsonRpcVersion = z.literal("2.0");
/** MCP forbids a null id on requests (basic §Requests). */
const RequestId = z.union([z.string(), z.number()]);
const Meta = z.record(z.string(), z.unknown()).meta({
  description: "MCP `_meta`; on 2026-07-28 requests it carries the protocol revision.",
});

function request<M extends string, P extends z.ZodType>(method: M, params: P) {
  return z.object({ jsonrpc: JsonRpcVersion, id: RequestId, method: z.literal(method), params });
}

/** `initialize` (revisions 2024-11-05 … 2025-11-25). */
export const InitializeRequest = request(
  "initialize",
  z.object({
    protocolVersion: z.enum(INITIALIZE_REVISIONS),
    capabilities: z.record(z.string(), z.unknown()),
    clientInfo: z.object({ name: z.string(), version: z.string() }).loose(),
    _meta: Meta.optional(),
  }).loose(),
);

/** `tools/list`. */
export const ToolsListRequest = request(
  "tools/list",
  z.object({ cursor: z.string().optional(), _meta: Meta.optional() }).loose().optional(),
);

/** Names of the eighteen tools, from the registry. */
export const ToolName = z.enum(TOOLS.map((t) => t.name) as [string, ...string[]]);

/** `tools/call`: `arguments` follows the tool's input schema (`Tool_<name>_Input`). */
export const ToolsCallRequest = request(
  "tools/call",
  z.object({
    name: ToolName,
    arguments: z.record(z.string(), z.unknown()).optional(),
    _meta: Meta.optional(),
  }).loose(),
);

/** `ping`. */
export const PingRequest = request("ping", z.object({ _meta: Meta.optional() }).loose().optional());

/** `logging/setLevel` (accepted; a no-op). */
export const SetLevelRequest = request(
  "logging/setLevel",
  z.object({
    level: z.enum([
      "debug",
      "info",
      "notice",
      "warning",
      "error",
      "critical",
      "alert",
      "emergency",
    ]),
    _meta: Meta.optional(),
  }).loose(),
);

/** `server/discover` (2026-07-28). */
export const ServerDiscoverRequest = request(
  "server/discover",
  z.object({ _meta: Meta.optional() }).loose().optional(),
);

/** Every request method the server answers, by method name. */
export const MCP_REQUESTS = {
  initialize: InitializeRequest,
  "tools/list": ToolsListRequest,
  "tools/call": ToolsCallRequest,
  ping: PingRequest,
  "logging/setLevel": SetLevelRequest,
  "server/discover": ServerDiscoverRequest,
} as const;

/** `notifications/initialized` and other notifications: no id; answered 202 with no body. */
export const McpNotification = z.object({
  jsonrpc: JsonRpcVersion,
  method: z.string().startsWith("notifications/"),
  params: z.record(z.string(), z.unknown()).optional(),
});

const ServerInfo = z.object({ name: z.string(), version: z.string() }).loose();

/** Result of `initialize`. */
export const InitializeResult = z.object({
  protocolVersion: z.enum(INITIALIZE_REVISIONS),
  capabilities: z.object({ tools: z.object({ listChanged: z.boolean() }) }).loose(),
  serverInfo: ServerInfo,
  instructions: z.string().optional(),
  _meta: Meta.optional(),
}).strict();

/** One tool of `tools/list` (MCP `Tool`), as lib/tools/registry.ts describes it. */
export const ToolDescriptorSchema = z.object({
  name: ToolName,
  title: z.string(),
  description: z.string(),
  inputSchema: z.object({ type: z.literal("object") }).loose(),
  outputSchema: z.object({ type: z.literal("object") }).loose(),
  annotations: z.object({
    readOnlyHint: z.literal(true),
    destructiveHint: z.literal(false),
    idempotentHint: z.literal(true),
    openWorldHint: z.literal(false),
  }).strict(),
}).strict();

/** Result of `tools/list`. */
export const ToolsListResult = z.object({
  tools: z.array(ToolDescriptorSchema),
  nextCursor: z.string().optional(),
  _meta: Meta.optional(),
}).strict();

/**
 * Result of `tools/call`. On success `structuredContent` follows the tool's output schema
 * (`Tool_<name>_Output`) and the text block carries the same JSON; a tool failure is a result with
 * `isError: true` and `{error: {code, message, …}}` as text.
 */
export const ToolsCallResult = z.object({
  content: z.array(z.object({ type: z.literal("text"), text: z.string() }).strict()).min(1),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
  _meta: Meta.optional(),
}).strict();

/** Result of `ping` and `logging/setLevel`: the empty object. */
export const EmptyResult = z.object({}).strict();

/** Result of `server/discover` (2026-07-28). */
export const ServerDiscoverResult = z.object({
  resultType: z.literal("complete"),
  supportedVersions: z.array(z.enum(SUPPORTED_REVISIONS as [string, ...string[]])),
  capabilities: z.record(z.string(), z.unknown()),
  _meta: Meta.optional(),
}).loose();

/** A successful JSON-RPC response; `result` depends on the method. */
export const JsonRpcResultResponse = z.object({
  jsonrpc: JsonRpcVersion,
  id: RequestId,
  result: z.union([
    InitializeResult,
    ToolsListResult,
    ToolsCallResult,
    ServerDiscoverResult,
    EmptyResult,
  ]),
}).strict();

/** The JSON-RPC error codes the server sends (`RPC` of protocol.ts). */
export const RpcErrorCode = z.union(
  Object.values(RPC).map((code) => z.literal(code)) as [
    z.ZodLiteral<number>,
    ...z.ZodLiteral<number>[],
  ],
);

/**
 * A JSON-RPC error. `data` carries `supported`/`requested` on a refused revision, `code` and
 * `requestId` on transport failures (401, 429, …) and `synthetic: true` on the sandbox.
 */
export const JsonRpcErrorResponse = z.object({
  jsonrpc: JsonRpcVersion,
  id: RequestId.nullable(),
  error: z.object({
    code: RpcErrorCode,
    message: z.string(),
    data: z.record(z.string(), z.unknown()).optional(),
  }).strict(),
}).strict();
