/**
 * The MCP engine: one JSON-RPC message in, one reply out (status, body, headers). It speaks the
 * stateless Streamable HTTP profile of DESIGN §9 for both `/api/mcp` and `/api/sandbox`, in the
 * `initialize` era (2024-11-05 … 2025-11-25) and the 2026-07-28 per-request form. HTTP-free: the
 * transport in `lib/http/mcp_transport.ts` does Origin/Host checks, body limits, credentials and
 * rate limits, then hands the parsed message here.
 */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import type { MemberRecord } from "../record/types.ts";
import { TOOL_BY_NAME, TOOL_DESCRIPTORS } from "../tools/registry.ts";
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

/** A member record plus the key under which its tool results may be cached. */
export interface RecordHandle {
  record: MemberRecord;
  /**
   * Identifies this exact record state (e.g. `sandbox`, or member id + record version); results
   * are cached under it. `null` disables caching.
   */
  cacheScope: string | null;
}

/** Who the server says it is. */
export interface ServerIdentity {
  name: string;
  title: string;
  version: string;
  description: string;
  websiteUrl: string;
  instructions: string;
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
  /** For log lines. */
  requestId: string;
}

/** The engine's answer: HTTP status, JSON body text (null = empty), extra headers. */
export interface McpReply {
  status: number;
  /** JSON text, or its UTF-8 bytes (cached results are kept encoded), or null for no body. */
  body: string | Uint8Array<ArrayBuffer> | null;
}

/** Parses a reply's body (text or bytes) back into the JSON-RPC message, for in-process callers. */
export function replyMessage(reply: McpReply): Record<string, unknown> {
  if (reply.body === null) return {};
  const text = typeof reply.body === "string" ? reply.body : new TextDecoder().decode(reply.body);
  return JSON.parse(text);
}

/** The JSON-RPC method a parsed message names, if it is a well-formed request (for routing). */
export function methodOf(message: unknown): string | null {
  if (message && typeof message === "object" && !Array.isArray(message)) {
    const method = (message as { method?: unknown }).method;
    if (typeof method === "string") return method;
  }
  return null;
}

/** Builds a JSON-RPC error reply. */
export function rpcError(
  id: RpcId | null,
  code: number,
  message: string,
  status: number,
  data?: Record<string, unknown>,
  synthetic = false,
): McpReply {
  const error: Record<string, unknown> = { code, message };
  const payload = synthetic ? { ...data, synthetic: true } : data;
  if (payload) error.data = payload;
  return { status, body: JSON.stringify({ jsonrpc: "2.0", id, error }) };
}

const CAPABILITIES = { tools: { listChanged: false }, logging: {} } as const;

/** tools/list result, serialized once (the catalogue never changes at run time). */
const encoder = new TextEncoder();
const TOOLS_LIST_JSON = encoder.encode(JSON.stringify({ tools: TOOL_DESCRIPTORS }));

/** Results of sandbox-style immutable records, keyed by scope + tool + raw arguments. */
const RESULT_CACHE_LIMIT = 2000;
const resultCache = new Map<string, Uint8Array<ArrayBuffer>>();

function rememberResult(key: string, json: Uint8Array<ArrayBuffer>): void {
  if (resultCache.size >= RESULT_CACHE_LIMIT) {
    // Drop the oldest entry (Map iterates in insertion order).
    resultCache.delete(resultCache.keys().next().value!);
  }
  resultCache.set(key, json);
}

/** Splices a pre-serialized result into a response (avoids re-serializing cached results). */
function resultReply(id: RpcId, result: string | Uint8Array<ArrayBuffer>, status = 200): McpReply {
  if (typeof result === "string") {
    return { status, body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}` };
  }
  // Encoded results are spliced as bytes: encoding a few kB per request is measurable.
  const head = encoder.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
  const body = new Uint8Array(head.byteLength + result.byteLength + 1);
  body.set(head, 0);
  body.set(result, head.byteLength);
  body[body.byteLength - 1] = 0x7d; // "}"
  return { status, body };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Handles one parsed JSON-RPC message. Never throws for bad input: every failure is a JSON-RPC
 * error or an `isError` tool result, as the MCP specification assigns it.
 */
export async function handleMcpMessage(
  message: unknown,
  ctx: McpRequestContext,
): Promise<McpReply> {
  const syn = ctx.synthetic;
  if (Array.isArray(message)) {
    // Batching was removed in MCP 2025-06-18; one message per POST (DESIGN §9).
    return rpcError(
      null,
      RPC.INVALID_REQUEST,
      "Batch requests are not supported; send one JSON-RPC message per POST.",
      400,
      undefined,
      syn,
    );
  }
  if (!isPlainObject(message) || message.jsonrpc !== "2.0") {
    return rpcError(
      null,
      RPC.INVALID_REQUEST,
      'Invalid Request: expected a JSON-RPC 2.0 object with "jsonrpc": "2.0".',
      400,
      undefined,
      syn,
    );
  }
  const hasId = "id" in message;
  const { id, method } = message;
  if (typeof method !== "string") {
    if (!hasId || "result" in message || "error" in message) {
      // A JSON-RPC response or stray notification posted to us: accepted, nothing to answer.
      if ("result" in message || "error" in message) return { status: 202, body: null };
    }
    return rpcError(
      validId(id) ? id : null,
      RPC.INVALID_REQUEST,
      'Invalid Request: "method" must be a string.',
      400,
      undefined,
      syn,
    );
  }
  if (!hasId) {
    // Notifications (e.g. notifications/initialized) get 202 with no body (Streamable HTTP).
    return { status: 202, body: null };
  }
  if (!validId(id)) {
    return rpcError(
      null,
      RPC.INVALID_REQUEST,
      'Invalid Request: "id" must be a string or a number, never null (MCP basic §Requests).',
      400,
      undefined,
      syn,
    );
  }
  const params = message.params;
  if (params !== undefined && !isPlainObject(params)) {
    return rpcError(
      id,
      RPC.INVALID_PARAMS,
      'Invalid params: "params" must be an object.',
      200,
      undefined,
      syn,
    );
  }

  const meta = params && isPlainObject(params._meta) ? params._meta : undefined;
  const perRequestVersion = meta?.[META_PROTOCOL_VERSION];
  if (perRequestVersion !== undefined) {
    return await handlePerRequestForm(id, method, params ?? {}, perRequestVersion, ctx);
  }
  return await handleInitializeEra(id, method, params ?? {}, ctx);
}

function validId(id: unknown): id is RpcId {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** The 2024-11-05 … 2025-11-25 form: `initialize` first, then `MCP-Protocol-Version` headers. */
async function handleInitializeEra(
  id: RpcId,
  method: string,
  params: Record<string, unknown>,
  ctx: McpRequestContext,
): Promise<McpReply> {
  const syn = ctx.synthetic;
  if (method === "initialize") {
    const requested = params.protocolVersion;
    if (typeof requested !== "string") {
      return rpcError(
        id,
        RPC.INVALID_PARAMS,
        'Invalid params: "protocolVersion" (string) is required.',
        200,
        undefined,
        syn,
      );
    }
    if (!(INITIALIZE_REVISIONS as readonly string[]).includes(requested)) {
      // Issue #2 asks for a refusal that lists what is spoken (MCP lifecycle §Error Handling).
      return rpcError(id, RPC.INVALID_PARAMS, "Unsupported protocol version", 200, {
        supported: SUPPORTED_REVISIONS,
        requested,
      }, syn);
    }
    return resultReply(
      id,
      JSON.stringify(withMeta({
        protocolVersion: requested,
        capabilities: CAPABILITIES,
        serverInfo: serverInfoOf(ctx.identity),
        instructions: ctx.identity.instructions,
      }, syn)),
    );
  }

  // After initialize the client sends MCP-Protocol-Version on every request (2025-06-18+); a
  // value we do not speak is a 400 that names what we do speak (transports §Protocol Version Header).
  const header = ctx.protocolVersionHeader;
  if (header !== null && !(INITIALIZE_REVISIONS as readonly string[]).includes(header)) {
    if ((PER_REQUEST_REVISIONS as readonly string[]).includes(header)) {
      return rpcError(
        id,
        RPC.HEADER_MISMATCH,
        `MCP-Protocol-Version is ${header} but params._meta["${META_PROTOCOL_VERSION}"] is missing.`,
        400,
        undefined,
        syn,
      );
    }
    return rpcError(
      id,
      RPC.INVALID_REQUEST,
      `Bad Request: Unsupported protocol version: ${header}`,
      400,
      {
        supported: SUPPORTED_REVISIONS,
        requested: header,
      },
      syn,
    );
  }
  const revision = header ?? DEFAULT_HEADERLESS_REVISION;

  switch (method) {
    case "ping":
    case "logging/setLevel":
      // Both answer exactly `{}` (conformance `ping`, `logging-set-level`), even on the sandbox:
      // they carry no data, and the X-Data-Synthetic header still marks the response.
      return resultReply(id, "{}");
    case "tools/list":
      return listTools(id, params, syn, false);
    case "tools/call":
      return await callTool(id, params, ctx, false);
    case "server/discover":
      return resultReply(id, discoverJson(ctx));
    default:
      return rpcError(id, RPC.METHOD_NOT_FOUND, `Method not found: ${method}`, 200, {
        revision,
      }, syn);
  }
}

/** The 2026-07-28 form: no `initialize`; each request carries its revision in `_meta`. */
async function handlePerRequestForm(
  id: RpcId,
  method: string,
  params: Record<string, unknown>,
  version: unknown,
  ctx: McpRequestContext,
): Promise<McpReply> {
  const syn = ctx.synthetic;
  if (
    typeof version !== "string" || !(PER_REQUEST_REVISIONS as readonly string[]).includes(version)
  ) {
    return rpcError(id, RPC.UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", 400, {
      supported: SUPPORTED_REVISIONS,
      requested: version,
    }, syn);
  }
  // 2026-07-28 transports §Server Validation: headers must agree with the body.
  if (ctx.protocolVersionHeader !== null && ctx.protocolVersionHeader !== version) {
    return rpcError(
      id,
      RPC.HEADER_MISMATCH,
      `MCP-Protocol-Version header (${ctx.protocolVersionHeader}) does not match _meta protocol version (${version}).`,
      400,
      undefined,
      syn,
    );
  }
  if (ctx.mcpMethodHeader !== null && ctx.mcpMethodHeader !== method) {
    return rpcError(
      id,
      RPC.HEADER_MISMATCH,
      `Mcp-Method header (${ctx.mcpMethodHeader}) does not match method (${method}).`,
      400,
      undefined,
      syn,
    );
  }
  if (method === "tools/call" && ctx.mcpNameHeader !== null && ctx.mcpNameHeader !== params.name) {
    return rpcError(
      id,
      RPC.HEADER_MISMATCH,
      `Mcp-Name header (${ctx.mcpNameHeader}) does not match params.name.`,
      400,
      undefined,
      syn,
    );
  }
  switch (method) {
    case "server/discover":
      return resultReply(id, discoverJson(ctx));
    case "tools/list":
      return listTools(id, params, syn, true);
    case "tools/call":
      return await callTool(id, params, ctx, true);
    default:
      // 2026-07-28: an unknown method is also HTTP 404.
      return rpcError(id, RPC.METHOD_NOT_FOUND, `Method not found: ${method}`, 404, undefined, syn);
  }
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

function withMeta<T extends Record<string, unknown>>(result: T, synthetic: boolean): T {
  return synthetic ? { ...result, _meta: { [META_SYNTHETIC]: true } } : result;
}

function discoverJson(ctx: McpRequestContext): string {
  const meta: Record<string, unknown> = { [META_SERVER_INFO]: serverInfoOf(ctx.identity) };
  if (ctx.synthetic) meta[META_SYNTHETIC] = true;
  return JSON.stringify({
    resultType: "complete",
    supportedVersions: SUPPORTED_REVISIONS,
    capabilities: { tools: { listChanged: false } },
    instructions: ctx.identity.instructions,
    ttlMs: 3_600_000,
    cacheScope: "public",
    _meta: meta,
  });
}

const TOOLS_LIST_SYNTHETIC_JSON = encoder.encode(
  JSON.stringify(withMeta({ tools: TOOL_DESCRIPTORS }, true)),
);

function listTools(
  id: RpcId,
  params: Record<string, unknown>,
  synthetic: boolean,
  perRequest: boolean,
): McpReply {
  if (params.cursor !== undefined) {
    // All eighteen tools fit one page, so no cursor is ever issued (pagination §Error Handling).
    return rpcError(
      id,
      RPC.INVALID_PARAMS,
      "Invalid params: unknown cursor (the tool list has a single page).",
      200,
      undefined,
      synthetic,
    );
  }
  if (perRequest) {
    const result: Record<string, unknown> = {
      resultType: "complete",
      tools: TOOL_DESCRIPTORS,
      ttlMs: 3_600_000,
      cacheScope: "public",
    };
    return resultReply(id, JSON.stringify(withMeta(result, synthetic)));
  }
  return resultReply(id, synthetic ? TOOLS_LIST_SYNTHETIC_JSON : TOOLS_LIST_JSON);
}

/** The text block of a failed tool call: the error as JSON a model can read and act on. */
function toolErrorResult(error: AppError, synthetic: boolean, perRequest: boolean): string {
  const payload = { error: { code: error.code, message: error.message, ...error.details } };
  const result: Record<string, unknown> = {
    content: [{ type: "text", text: JSON.stringify(payload) }],
    isError: true,
  };
  if (perRequest) result.resultType = "complete";
  return JSON.stringify(withMeta(result, synthetic));
}

async function callTool(
  id: RpcId,
  params: Record<string, unknown>,
  ctx: McpRequestContext,
  perRequest: boolean,
): Promise<McpReply> {
  const syn = ctx.synthetic;
  const name = params.name;
  if (typeof name !== "string") {
    return rpcError(
      id,
      RPC.INVALID_PARAMS,
      'Invalid params: "name" (string) is required.',
      200,
      undefined,
      syn,
    );
  }
  const tool = TOOL_BY_NAME.get(name);
  if (!tool) {
    // An unknown tool is a protocol error (MCP server/tools §Error Handling).
    return rpcError(id, RPC.INVALID_PARAMS, `Unknown tool: ${name}`, 200, {
      tools: [...TOOL_BY_NAME.keys()],
    }, syn);
  }
  const rawArgs = params.arguments ?? {};
  if (!isPlainObject(rawArgs)) {
    return rpcError(
      id,
      RPC.INVALID_PARAMS,
      'Invalid params: "arguments" must be an object.',
      200,
      undefined,
      syn,
    );
  }

  const handle = await ctx.loadRecord();
  const cacheKey = handle.cacheScope === null
    ? null
    : `${perRequest ? "p" : "i"}\0${handle.cacheScope}\0${name}\0${JSON.stringify(rawArgs)}`;
  if (cacheKey !== null) {
    const cached = resultCache.get(cacheKey);
    if (cached !== undefined) return resultReply(id, cached);
  }

  // Argument validation failures are tool execution errors, so a model can correct itself
  // (MCP 2025-11-25 server/tools, SEP-1303).
  const parsed = tool.input.safeParse(rawArgs);
  if (!parsed.success) {
    const error = new AppError(
      "invalid_request",
      `Invalid arguments for ${name}: ${z.prettifyError(parsed.error)}`,
      {
        details: {
          issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
        },
      },
    );
    const json = encoder.encode(toolErrorResult(error, syn, perRequest));
    if (cacheKey !== null) rememberResult(cacheKey, json);
    return resultReply(id, json);
  }

  let json: string;
  try {
    const structured = tool.run(handle.record, parsed.data) as Record<string, unknown>;
    const text = JSON.stringify(structured);
    const meta = syn ? `,"_meta":{"${META_SYNTHETIC}":true}` : "";
    const resultType = perRequest ? `"resultType":"complete",` : "";
    json = `{${resultType}"content":[{"type":"text","text":${
      JSON.stringify(text)
    }}],"structuredContent":${text},"isError":false${meta}}`;
  } catch (err) {
    if (err instanceof AppError) {
      json = toolErrorResult(err, syn, perRequest);
    } else {
      console.error(`[${ctx.requestId}] tool ${name} failed:`, err);
      return rpcError(id, RPC.INTERNAL_ERROR, "Internal error", 500, {
        requestId: ctx.requestId,
      }, syn);
    }
  }
  const bytes = encoder.encode(json);
  if (cacheKey !== null) rememberResult(cacheKey, bytes);
  return resultReply(id, bytes);
}
