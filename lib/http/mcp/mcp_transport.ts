/**
 * Streamable HTTP for `/api/mcp` and `/api/sandbox` (DESIGN §9, MCP 2025-11-25 basic/transports):
 * Host/Origin validation, media types, body limits, credentials and rate limits, then the engine.
 */

import { AppError } from "../../foundation/errors.ts";
import {
  handleMcpMessage,
  type McpReply,
  methodOf,
  type RecordHandle,
  rpcError,
} from "../../mcp/server.ts";
import { type ServerIdentity, serverIdentity } from "../../mcp/identity.ts";
import { RPC } from "../../mcp/protocol.ts";
import { syntheticMember } from "../../sandbox/synthetic_member.ts";
import { authenticate, isLoopbackHost, isSameOrigin } from "../kernel/auth.ts";
import { isJsonContentType, readBodyText } from "../kernel/body.ts";
import { accepts } from "../kernel/media_type.ts";
import { type AppContext, refusal, type RouteHandlers } from "../kernel/define.ts";
import { canonicalPath } from "../kernel/common_headers.ts";
import { applyDeprecation } from "../kernel/deprecation.ts";
import { enforceRateLimit } from "../kernel/rate_limit.ts";
import { errorParts, logInternal, withErrorHeaders } from "../kernel/errors.ts";

/** Largest JSON-RPC message accepted; tool arguments are small. */
export const MAX_MCP_BODY_BYTES = 256 * 1024;

function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  return h.split(":", 1)[0];
}

const baseHostnames = new Map<string, string>();

/** The base URL's hostname, parsed once (URL parsing is measurable per request). */
function baseHostnameOf(baseUrl: string): string {
  let hostname = baseHostnames.get(baseUrl);
  if (hostname === undefined) {
    hostname = new URL(baseUrl).hostname.toLowerCase();
    baseHostnames.set(baseUrl, hostname);
  }
  return hostname;
}

/**
 * DNS-rebinding protection (MCP transports §Security Warning): the `Host` must name this service
 * (its BASE_URL host, or loopback), and an `Origin` must pass the `mcpTransport` same-origin rule
 * (lib/http/kernel/auth.ts). Anything else is 403.
 */
export function checkHostAndOrigin(c: AppContext, baseUrl: string): string | null {
  const host = c.req.header("host");
  if (host) {
    const name = hostnameOf(host);
    if (name !== baseHostnameOf(baseUrl) && !isLoopbackHost(name)) {
      return `Invalid Host header: ${host}`;
    }
  }
  if (!isSameOrigin(c, "mcpTransport")) return `Invalid Origin header: ${c.req.header("origin")}`;
  return null;
}

/** An MCP answer before it becomes a Response (`mcpResponse`); the middleware adds the rest. */
export interface McpAnswer {
  status: number;
  body: McpReply["body"];
  headers: Headers;
}

/** The Response of an answer, built with every header it will carry. */
export function mcpResponse(answer: McpAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

function reply(r: McpReply, synthetic: boolean): McpAnswer {
  const headers = new Headers();
  if (r.body !== null) headers.set("Content-Type", "application/json");
  if (synthetic) headers.set("X-Data-Synthetic", "true");
  return { status: r.status, body: r.body, headers };
}

/** A transport-level refusal (before the engine reads the message): a JSON-RPC error with no id. */
function refuse(
  error: { status: number; code: number; message: string },
  synthetic: boolean,
): McpAnswer {
  return reply(rpcError({ ...error, synthetic }), synthetic);
}

const identities = new WeakMap<object, { mcp: ServerIdentity; sandbox: ServerIdentity }>();

/** Who the server says it is, built once per configuration. */
function identityOf(c: AppContext, endpoint: "mcp" | "sandbox"): ServerIdentity {
  const config = c.get("deps").config;
  let pair = identities.get(config);
  if (!pair) {
    pair = { mcp: serverIdentity(config, "mcp"), sandbox: serverIdentity(config, "sandbox") };
    identities.set(config, pair);
  }
  return pair[endpoint];
}

const SANDBOX_HANDLE = { cacheScope: "sandbox" } as const;

/** Media-type checks (transports §Sending Messages): a refusal, or null when acceptable. */
function checkMediaTypes(c: AppContext, sandbox: boolean): McpAnswer | null {
  if (!isJsonContentType(c)) {
    const message = "Unsupported Media Type: send Content-Type: application/json.";
    return refuse({ status: 415, code: RPC.INVALID_REQUEST, message }, sandbox);
  }
  if (!accepts(c, "application/json")) {
    const message = "Not Acceptable: the client must accept application/json.";
    return refuse({ status: 406, code: RPC.INVALID_REQUEST, message }, sandbox);
  }
  return null;
}

/**
 * Who may read which record: the sandbox's synthetic member for anyone; on `/api/mcp` only
 * `tools/call` needs a credential — initialize, ping and tools/list stay open (DESIGN §9).
 */
async function recordLoader(
  c: AppContext,
  sandbox: boolean,
  message: unknown,
): Promise<() => Promise<RecordHandle> | RecordHandle> {
  if (sandbox) return () => ({ record: syntheticMember(), ...SANDBOX_HANDLE });
  if (methodOf(message) === "tools/call") {
    // Only tools/call needs a credential; an API token or an OAuth access token with `read`.
    const principal = await authenticate(c, {
      accept: ["apiToken", "accessToken"],
      scopes: ["read"],
      missing: "tools/call needs Authorization: Bearer <token> with scope read.",
    });
    await enforceRateLimit(c, "mcp", principal.memberId);
    // The member's own record, from the per-instance cache keyed by its record version (read
    // strongly with the credential when it could be: one getMany per call).
    const { memberId, recordVersion } = principal.record;
    return () => c.get("deps").access.records.load(memberId, recordVersion);
  }
  await enforceRateLimit(c, "mcp-meta", c.get("clientIp"));
  return () => {
    throw new AppError("unauthorized", "tools/call needs a bearer token.");
  };
}

/** Answers one MCP POST (the route below). */
export async function answerMcp(c: AppContext, endpoint: "mcp" | "sandbox"): Promise<McpAnswer> {
  const sandbox = endpoint === "sandbox";
  const deps = c.get("deps");
  const hostProblem = checkHostAndOrigin(c, deps.config.baseUrl);
  if (hostProblem) {
    return refuse(
      { status: 403, code: RPC.INVALID_REQUEST, message: `Forbidden: ${hostProblem}` },
      sandbox,
    );
  }
  let idForErrors: string | number | null = null;
  try {
    if (sandbox) await enforceRateLimit(c, "sandbox", c.get("clientIp"));
    const mediaProblem = checkMediaTypes(c, sandbox);
    if (mediaProblem) return mediaProblem;
    const text = await readBodyText(c, MAX_MCP_BODY_BYTES);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      if (!sandbox) await enforceRateLimit(c, "mcp-meta", c.get("clientIp"));
      return refuse({
        status: 400,
        code: RPC.PARSE_ERROR,
        message: "Parse error: the body is not valid JSON.",
      }, sandbox);
    }
    const rawId = (message as { id?: unknown } | null)?.id;
    if (typeof rawId === "string" || typeof rawId === "number") idForErrors = rawId;
    const loadRecord = await recordLoader(c, sandbox, message);
    const toolName = methodOf(message) === "tools/call"
      ? (message as { params?: { name?: unknown } }).params?.name
      : undefined;
    if (typeof toolName === "string") applyDeprecation(c, "tool", toolName);

    const r = await handleMcpMessage(message, {
      identity: identityOf(c, endpoint),
      synthetic: sandbox,
      protocolVersionHeader: c.req.header("mcp-protocol-version") ?? null,
      mcpMethodHeader: c.req.header("mcp-method") ?? null,
      mcpNameHeader: c.req.header("mcp-name") ?? null,
      loadRecord,
      results: deps.mcpResults,
      requestId: c.get("requestId"),
    });
    return reply(r, sandbox);
  } catch (err) {
    return transportFailure(c, { err, id: idForErrors, sandbox });
  }
}

/** An `AppError` (credential, rate limit, body size) or a bug, as a JSON-RPC error. */
function transportFailure(
  c: AppContext,
  { err, id, sandbox }: { err: unknown; id: string | number | null; sandbox: boolean },
): McpAnswer {
  const baseUrl = c.get("deps").config.baseUrl;
  const parts = errorParts(err, {
    resourceMetadata: `${baseUrl}/.well-known/oauth-protected-resource${c.req.path}`,
  });
  logInternal(parts, "MCP transport failed", c.get("requestId"));
  const e = parts.error;
  const answer = reply(
    rpcError({
      id,
      code: e.code === "internal" ? RPC.INTERNAL_ERROR : RPC.INVALID_REQUEST,
      message: parts.publicMessage,
      status: parts.status,
      data: { code: e.code, requestId: c.get("requestId"), ...e.details },
      synthetic: sandbox,
    }),
    sandbox,
  );
  return withErrorHeaders(answer, parts);
}

function methodNotAllowed(c: AppContext, sandbox: boolean): Response {
  // Stateless server: no SSE stream (GET) and no session to delete (DELETE) → 405 (transports).
  const message = `Method Not Allowed: ${c.req.method} ${
    canonicalPath(c.req.path)
  } accepts POST only.`;
  const answer = refuse({ status: 405, code: RPC.INVALID_REQUEST, message }, sandbox);
  answer.headers.set("Allow", "POST");
  return mcpResponse(answer);
}

/** Route handlers for an MCP endpoint. */
export function mcpRouteHandlers(endpoint: "mcp" | "sandbox"): RouteHandlers {
  const sandbox = endpoint === "sandbox";
  // Every other method is refused in the JSON-RPC shape with `Allow: POST`, so PUT and PATCH
  // answer as GET and DELETE do (not the REST envelope with an Allow naming GET and DELETE).
  const refuse = () => refusal((c) => methodNotAllowed(c, sandbox));
  return {
    POST: async (c) => mcpResponse(await answerMcp(c, endpoint)),
    GET: refuse(),
    DELETE: refuse(),
    PUT: refuse(),
    PATCH: refuse(),
  };
}
