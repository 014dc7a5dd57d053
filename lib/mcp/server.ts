/**
 * The MCP engine: one JSON-RPC message in, one reply out (status, body). Protocol only: it speaks
 * the stateless Streamable HTTP profile of DESIGN §9 for both `/api/mcp` and `/api/sandbox`, in the
 * `initialize` era (2024-11-05 … 2025-11-25) and the 2026-07-28 per-request form, and maps what
 * `runTool` (lib/tools/run_tool.ts) returns onto results and JSON-RPC errors. HTTP-free: the
 * transport in `lib/http/mcp/mcp_transport.ts` does Origin/Host checks, body limits, credentials and
 * rate limits, then hands the parsed message here. JSON is built only in `./serialize.ts`.
 */

import type { MemberRecord } from "../record/types.ts";
import { TOOL_DESCRIPTORS } from "../tools/registry.ts";
import { runTool } from "../tools/run_tool.ts";
import type { ServerIdentity } from "./identity.ts";
import {
  DEFAULT_HEADERLESS_REVISION,
  INITIALIZE_REVISIONS,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  META_SYNTHETIC,
  PER_REQUEST_REVISIONS,
  RPC,
  type RpcId,
  SUPPORTED_REVISIONS,
} from "./protocol.ts";
import type { ResultCache } from "./result_cache.ts";
import { asciiJson, encodeResult, errorJson, resultJson, toolResultJson } from "./serialize.ts";
import { logError } from "../foundation/log.ts";

/** A member record plus the key under which its tool results may be cached. */
export interface RecordHandle {
  record: MemberRecord;
  /**
   * Identifies this exact record state (e.g. `sandbox`, or member id + record version); results
   * are cached under it. `null` disables caching.
   */
  cacheScope: string | null;
}

/** What the transport tells the engine about one request. */
export interface McpRequestContext {
  identity: ServerIdentity;
  /** True on the sandbox: every result and error is marked synthetic (DESIGN §9). */
  synthetic: boolean;
  /** `MCP-Protocol-Version` header, if sent. */
  protocolVersionHeader: string | null;
  /** `Mcp-Method` header (2026-07-28), if sent. */
  mcpMethodHeader: string | null;
  /** `Mcp-Name` header (2026-07-28), if sent. */
  mcpNameHeader: string | null;
  /** Loads the record `tools/call` reads; the transport has already authenticated the caller. */
  loadRecord(): Promise<RecordHandle> | RecordHandle;
  /** Results of immutable record states (injected with the app's dependencies). */
  results: ResultCache;
  /** For log lines. */
  requestId: string;
}

/** The engine's answer: HTTP status and JSON body. */
export interface McpReply {
  status: number;
  /** JSON text (tool results and tools/list in ASCII, see ./serialize.ts), or null for no body. */
  body: string | null;
}

/** The JSON-RPC method a parsed message names, if it is a well-formed request (for routing). */
export function methodOf(message: unknown): string | null {
  if (message && typeof message === "object" && !Array.isArray(message)) {
    const method = (message as { method?: unknown }).method;
    if (typeof method === "string") return method;
  }
  return null;
}

/** A JSON-RPC error reply. */
export interface RpcErrorOptions {
  /** The request's id, or null when it could not be read. */
  id?: RpcId | null;
  /** JSON-RPC error code (`RPC`). */
  code: number;
  message: string;
  /** HTTP status of the reply. */
  status: number;
  data?: Record<string, unknown>;
  /** Marks the error as sandbox data (DESIGN §9). */
  synthetic?: boolean;
}

/** Builds a JSON-RPC error reply. */
export function rpcError(options: RpcErrorOptions): McpReply {
  const { id = null, code, message, status, data, synthetic = false } = options;
  const payload = synthetic ? { ...data, synthetic: true } : data;
  return {
    status,
    body: errorJson(id, payload ? { code, message, data: payload } : { code, message }),
  };
}

const CAPABILITIES = { tools: { listChanged: false }, logging: {} } as const;

/**
 * tools/list results by era, then sandbox or not: serialised once (the catalogue never changes at
 * run time), in ASCII like cached tool results (`asciiJson`: the body Deno sends fastest).
 */
const TOOLS_LIST_JSON = [false, true].map((perRequest) =>
  [false, true].map((synthetic) => {
    // The per-request era (2026-07-28) adds its result type and caching guidance.
    const result = perRequest
      ? { resultType: "complete", tools: TOOL_DESCRIPTORS, ttlMs: 3_600_000, cacheScope: "public" }
      : { tools: TOOL_DESCRIPTORS };
    return asciiJson(encodeResult(result, synthetic));
  })
);

function resultReply(id: RpcId, result: string): McpReply {
  return { status: 200, body: resultJson(id, result) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function validId(id: unknown): id is RpcId {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** A refusal of this request: the engine's errors all carry the sandbox marker on the sandbox. */
type Refuse = (options: Omit<RpcErrorOptions, "synthetic">) => McpReply;

/**
 * Handles one parsed JSON-RPC message. Never throws for bad input: every failure is a JSON-RPC
 * error or an `isError` tool result, as the MCP specification assigns it.
 */
export async function handleMcpMessage(
  message: unknown,
  ctx: McpRequestContext,
): Promise<McpReply> {
  const refuse: Refuse = (o) => rpcError({ ...o, synthetic: ctx.synthetic });
  const request = validateRequest(message, refuse);
  if ("status" in request) return request;
  const { id, method, params } = request;
  const meta = isPlainObject(params._meta) ? params._meta : undefined;
  const perRequestVersion = meta?.[META_PROTOCOL_VERSION];
  if (perRequestVersion !== undefined) {
    const call = { id, method, params, ctx, refuse };
    return await handlePerRequestForm(call, perRequestVersion);
  }
  return await handleInitializeEra({ id, method, params, ctx, refuse });
}

/** A request that passed JSON-RPC validation. */
interface ValidRequest {
  id: RpcId;
  method: string;
  params: Record<string, unknown>;
}

/** JSON-RPC 2.0 envelope checks; a reply for anything that is not a request we must answer. */
function validateRequest(message: unknown, refuse: Refuse): ValidRequest | McpReply {
  const invalid = (message: string, id: RpcId | null = null) =>
    refuse({ id, code: RPC.INVALID_REQUEST, message, status: 400 });
  if (Array.isArray(message)) {
    // Batching was removed in MCP 2025-06-18; one message per POST (DESIGN §9).
    return invalid("Batch requests are not supported; send one JSON-RPC message per POST.");
  }
  if (!isPlainObject(message) || message.jsonrpc !== "2.0") {
    return invalid('Invalid Request: expected a JSON-RPC 2.0 object with "jsonrpc": "2.0".');
  }
  const hasId = "id" in message;
  const { id, method } = message;
  if (typeof method !== "string") {
    // A JSON-RPC response posted to us: accepted, nothing to answer.
    if ("result" in message || "error" in message) return { status: 202, body: null };
    return invalid('Invalid Request: "method" must be a string.', validId(id) ? id : null);
  }
  // Notifications (e.g. notifications/initialized) get 202 with no body (Streamable HTTP).
  if (!hasId) return { status: 202, body: null };
  if (!validId(id)) {
    return invalid(
      'Invalid Request: "id" must be a string or a number, never null (MCP basic §Requests).',
    );
  }
  const params = message.params;
  if (params !== undefined && !isPlainObject(params)) {
    return refuse({
      id,
      code: RPC.INVALID_PARAMS,
      message: 'Invalid params: "params" must be an object.',
      status: 200,
    });
  }
  return { id, method, params: params ?? {} };
}

/** One request being answered. */
interface Call extends ValidRequest {
  ctx: McpRequestContext;
  refuse: Refuse;
}

/** The 2024-11-05 … 2025-11-25 form: `initialize` first, then `MCP-Protocol-Version` headers. */
async function handleInitializeEra(call: Call): Promise<McpReply> {
  const { id, method, ctx, refuse } = call;
  if (method === "initialize") return initialize(call);
  const refusal = checkVersionHeader(call);
  if (refusal) return refusal;
  switch (method) {
    case "ping":
    case "logging/setLevel":
      // Both answer exactly `{}` (conformance `ping`, `logging-set-level`), even on the sandbox:
      // they carry no data, and the X-Data-Synthetic header still marks the response.
      return resultReply(id, "{}");
    case "tools/list":
      return listTools(call, false);
    case "tools/call":
      return await callTool(call, false);
    case "server/discover":
      return resultReply(id, discoverJson(ctx));
    default: {
      const revision = ctx.protocolVersionHeader ?? DEFAULT_HEADERLESS_REVISION;
      const message = `Method not found: ${method}`;
      return refuse({ id, code: RPC.METHOD_NOT_FOUND, message, status: 200, data: { revision } });
    }
  }
}

function initialize({ id, params, ctx, refuse }: Call): McpReply {
  const requested = params.protocolVersion;
  if (typeof requested !== "string") {
    const message = 'Invalid params: "protocolVersion" (string) is required.';
    return refuse({ id, code: RPC.INVALID_PARAMS, message, status: 200 });
  }
  if (!(INITIALIZE_REVISIONS as readonly string[]).includes(requested)) {
    // Issue #2 asks for a refusal that lists what is spoken (MCP lifecycle §Error Handling).
    return refuse({
      id,
      code: RPC.INVALID_PARAMS,
      message: "Unsupported protocol version",
      status: 200,
      data: { supported: SUPPORTED_REVISIONS, requested },
    });
  }
  return resultReply(
    id,
    encodeResult({
      protocolVersion: requested,
      capabilities: CAPABILITIES,
      serverInfo: serverInfoOf(ctx.identity),
      instructions: ctx.identity.instructions,
    }, ctx.synthetic),
  );
}

/**
 * After initialize the client sends MCP-Protocol-Version on every request (2025-06-18+); a value
 * we do not speak is a 400 that names what we do speak (transports §Protocol Version Header).
 */
function checkVersionHeader({ id, ctx, refuse }: Call): McpReply | null {
  const header = ctx.protocolVersionHeader;
  if (header === null || (INITIALIZE_REVISIONS as readonly string[]).includes(header)) return null;
  if ((PER_REQUEST_REVISIONS as readonly string[]).includes(header)) {
    return refuse({
      id,
      code: RPC.HEADER_MISMATCH,
      message:
        `MCP-Protocol-Version is ${header} but params._meta["${META_PROTOCOL_VERSION}"] is missing.`,
      status: 400,
    });
  }
  return refuse({
    id,
    code: RPC.INVALID_REQUEST,
    message: `Bad Request: Unsupported protocol version: ${header}`,
    status: 400,
    data: { supported: SUPPORTED_REVISIONS, requested: header },
  });
}

/** The 2026-07-28 form: no `initialize`; each request carries its revision in `_meta`. */
async function handlePerRequestForm(call: Call, version: unknown): Promise<McpReply> {
  const { id, method, ctx, refuse } = call;
  if (
    typeof version !== "string" || !(PER_REQUEST_REVISIONS as readonly string[]).includes(version)
  ) {
    return refuse({
      id,
      code: RPC.UNSUPPORTED_PROTOCOL_VERSION,
      message: "Unsupported protocol version",
      status: 400,
      data: { supported: SUPPORTED_REVISIONS, requested: version },
    });
  }
  const mismatch = headerMismatch(call, version);
  if (mismatch) return refuse({ id, code: RPC.HEADER_MISMATCH, message: mismatch, status: 400 });
  switch (method) {
    case "server/discover":
      return resultReply(id, discoverJson(ctx));
    case "tools/list":
      return listTools(call, true);
    case "tools/call":
      return await callTool(call, true);
    default:
      // 2026-07-28: an unknown method is also HTTP 404.
      return refuse({
        id,
        code: RPC.METHOD_NOT_FOUND,
        message: `Method not found: ${method}`,
        status: 404,
      });
  }
}

/** 2026-07-28 transports §Server Validation: headers must agree with the body. */
function headerMismatch({ method, params, ctx }: Call, version: string): string | null {
  if (ctx.protocolVersionHeader !== null && ctx.protocolVersionHeader !== version) {
    return `MCP-Protocol-Version header (${ctx.protocolVersionHeader}) does not match _meta protocol version (${version}).`;
  }
  if (ctx.mcpMethodHeader !== null && ctx.mcpMethodHeader !== method) {
    return `Mcp-Method header (${ctx.mcpMethodHeader}) does not match method (${method}).`;
  }
  if (method === "tools/call" && ctx.mcpNameHeader !== null && ctx.mcpNameHeader !== params.name) {
    return `Mcp-Name header (${ctx.mcpNameHeader}) does not match params.name.`;
  }
  return null;
}

function serverInfoOf(identity: ServerIdentity) {
  return {
    name: identity.name,
    title: identity.title,
    version: identity.version,
    description: identity.description,
    websiteUrl: identity.websiteUrl,
  };
}

function discoverJson(ctx: McpRequestContext): string {
  const meta: Record<string, unknown> = { [META_SERVER_INFO]: serverInfoOf(ctx.identity) };
  if (ctx.synthetic) meta[META_SYNTHETIC] = true;
  return encodeResult({
    resultType: "complete",
    supportedVersions: SUPPORTED_REVISIONS,
    capabilities: { tools: { listChanged: false } },
    instructions: ctx.identity.instructions,
    ttlMs: 3_600_000,
    cacheScope: "public",
    _meta: meta,
  }, false);
}

function listTools({ id, params, ctx, refuse }: Call, perRequest: boolean): McpReply {
  if (params.cursor !== undefined) {
    // All eighteen tools fit one page, so no cursor is ever issued (pagination §Error Handling).
    const message = "Invalid params: unknown cursor (the tool list has a single page).";
    return refuse({ id, code: RPC.INVALID_PARAMS, message, status: 200 });
  }
  return resultReply(id, TOOLS_LIST_JSON[Number(perRequest)][Number(ctx.synthetic)]);
}

async function callTool({ id, params, ctx, refuse }: Call, perRequest: boolean): Promise<McpReply> {
  const name = params.name;
  if (typeof name !== "string") {
    const message = 'Invalid params: "name" (string) is required.';
    return refuse({ id, code: RPC.INVALID_PARAMS, message, status: 200 });
  }
  const args = params.arguments ?? {};
  if (!isPlainObject(args)) {
    const message = 'Invalid params: "arguments" must be an object.';
    return refuse({ id, code: RPC.INVALID_PARAMS, message, status: 200 });
  }
  const handle = await ctx.loadRecord();
  const cacheKey = handle.cacheScope === null
    ? null
    : `${perRequest ? "p" : "i"}\0${handle.cacheScope}\0${name}\0${JSON.stringify(args)}`;
  const cached = cacheKey === null ? undefined : ctx.results.get(cacheKey);
  if (cached !== undefined) return resultReply(id, cached);

  let outcome;
  try {
    outcome = runTool(handle.record, name, args);
  } catch (err) {
    logError("tool failed", err, { requestId: ctx.requestId, tool: name });
    const data = { requestId: ctx.requestId };
    return refuse({ id, code: RPC.INTERNAL_ERROR, message: "Internal error", status: 500, data });
  }
  if (outcome.kind === "unknown_tool") {
    // An unknown tool is a protocol error (MCP server/tools §Error Handling).
    const { message, details } = outcome.error;
    return refuse({ id, code: RPC.INVALID_PARAMS, message, status: 200, data: details });
  }
  const json = toolResultJson(outcome, { synthetic: ctx.synthetic, perRequest });
  if (cacheKey !== null) ctx.results.set(cacheKey, json);
  return resultReply(id, json);
}
