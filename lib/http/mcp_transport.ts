/**
 * Streamable HTTP for `/api/mcp` and `/api/sandbox` (DESIGN §9, MCP 2025-11-25 basic/transports):
 * Host/Origin validation, media types, body limits, credentials and rate limits, then the engine.
 */

import { AppError } from "../errors.ts";
import {
  handleMcpMessage,
  type McpReply,
  methodOf,
  type RecordHandle,
  rpcError,
  type ServerIdentity,
} from "../mcp/server.ts";
import { RPC } from "../mcp/protocol.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { mcpChallenge, requireMcpPrincipal } from "./auth.ts";
import { isJsonContentType, readBodyText } from "./body.ts";
import type { AppContext, RouteHandlers } from "./define.ts";
import { canonicalPath } from "./common_headers.ts";
import { applyDeprecation } from "./deprecation.ts";
import { enforceRateLimit } from "./rate_limit.ts";
import { addRetryAfter, toAppError } from "./errors.ts";

/** Largest JSON-RPC message accepted; tool arguments are small. */
export const MAX_MCP_BODY_BYTES = 256 * 1024;

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  return h.split(":", 1)[0];
}

const parsedBaseUrls = new Map<string, { hostname: string; origin: string }>();

/** The base URL's hostname and origin, parsed once (URL parsing is measurable per request). */
function parsedBaseUrl(baseUrl: string): { hostname: string; origin: string } {
  let parsed = parsedBaseUrls.get(baseUrl);
  if (!parsed) {
    const url = new URL(baseUrl);
    parsed = { hostname: url.hostname.toLowerCase(), origin: url.origin };
    parsedBaseUrls.set(baseUrl, parsed);
  }
  return parsed;
}

/**
 * DNS-rebinding protection (MCP transports §Security Warning): the `Host` must name this service
 * (its BASE_URL host, or loopback), and an `Origin`, when sent, must be this service's origin or a
 * loopback origin (local tools such as the MCP Inspector). Anything else is 403.
 */
export function checkHostAndOrigin(c: AppContext, baseUrl: string): string | null {
  const base = parsedBaseUrl(baseUrl);
  const host = c.req.header("host");
  if (host) {
    const name = hostnameOf(host);
    if (name !== base.hostname && !LOOPBACK_HOSTS.has(name)) {
      return `Invalid Host header: ${host}`;
    }
  }
  const origin = c.req.header("origin");
  if (origin !== undefined && origin !== base.origin) {
    let ok = false;
    try {
      ok = LOOPBACK_HOSTS.has(new URL(origin).hostname);
    } catch {
      ok = false;
    }
    if (!ok) return `Invalid Origin header: ${origin}`;
  }
  return null;
}

function reply(_c: AppContext, r: McpReply, synthetic: boolean): Response {
  const headers: Record<string, string> = {};
  if (r.body !== null) headers["Content-Type"] = "application/json";
  if (synthetic) headers["X-Data-Synthetic"] = "true";
  return new Response(r.body, { status: r.status, headers });
}

const identities = new WeakMap<object, { mcp: ServerIdentity; sandbox: ServerIdentity }>();

/** Who the server says it is, built once per configuration. */
function identityOf(c: AppContext, sandbox: boolean): ServerIdentity {
  const config = c.get("deps").config;
  let pair = identities.get(config);
  if (!pair) {
    pair = { mcp: buildIdentity(config, false), sandbox: buildIdentity(config, true) };
    identities.set(config, pair);
  }
  return sandbox ? pair.sandbox : pair.mcp;
}

function buildIdentity(
  { baseUrl, version }: { baseUrl: string; version: string },
  sandbox: boolean,
): ServerIdentity {
  return sandbox
    ? {
      name: "routine-tracker-sandbox",
      title: "Routine Tracker sandbox (synthetic data)",
      version,
      description: "The Routine Tracker MCP server on a synthetic member. No credential needed.",
      websiteUrl: `${baseUrl}/docs/sandbox`,
      instructions:
        'Every value here is synthetic (member "Sam Rivera (synthetic)", frozen clock 2026-03-18). ' +
        "Start with list_columns, then get_overview. All 18 tools are read-only.",
    }
    : {
      name: "routine-tracker",
      title: "Routine Tracker",
      version,
      description: "Read-only MCP access to a member's daily-routine health record.",
      websiteUrl: `${baseUrl}/docs/mcp`,
      instructions:
        "Read-only tools over the member's own record. Start with list_columns to learn the metric " +
        "keys, then get_overview. Dates are member-local YYYY-MM-DD; ranges are inclusive.",
    };
}

const SANDBOX_HANDLE = { cacheScope: "sandbox" } as const;

async function serveMcp(c: AppContext, endpoint: "mcp" | "sandbox"): Promise<Response> {
  const sandbox = endpoint === "sandbox";
  const deps = c.get("deps");
  const hostProblem = checkHostAndOrigin(c, deps.config.baseUrl);
  if (hostProblem) {
    return reply(
      c,
      rpcError(null, RPC.INVALID_REQUEST, `Forbidden: ${hostProblem}`, 403, undefined, sandbox),
      sandbox,
    );
  }
  let idForErrors: string | number | null = null;
  try {
    if (sandbox) await enforceRateLimit(c, "sandbox", c.get("clientIp"));
    if (!isJsonContentType(c)) {
      return reply(
        c,
        rpcError(
          null,
          RPC.INVALID_REQUEST,
          "Unsupported Media Type: send Content-Type: application/json.",
          415,
          undefined,
          sandbox,
        ),
        sandbox,
      );
    }
    const accept = c.req.header("accept");
    if (accept && !/application\/json|application\/\*|\*\/\*/i.test(accept)) {
      return reply(
        c,
        rpcError(
          null,
          RPC.INVALID_REQUEST,
          "Not Acceptable: the client must accept application/json.",
          406,
          undefined,
          sandbox,
        ),
        sandbox,
      );
    }
    const text = await readBodyText(c, MAX_MCP_BODY_BYTES);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      if (!sandbox) await enforceRateLimit(c, "mcp-meta", c.get("clientIp"));
      return reply(
        c,
        rpcError(
          null,
          RPC.PARSE_ERROR,
          "Parse error: the body is not valid JSON.",
          400,
          undefined,
          sandbox,
        ),
        sandbox,
      );
    }
    const rawId = (message as { id?: unknown } | null)?.id;
    if (typeof rawId === "string" || typeof rawId === "number") idForErrors = rawId;

    let loadRecord: () => Promise<RecordHandle> | RecordHandle;
    if (sandbox) {
      loadRecord = () => ({ record: syntheticMember(), ...SANDBOX_HANDLE });
    } else if (methodOf(message) === "tools/call") {
      // Only tools/call needs a credential; initialize, ping and tools/list stay open (DESIGN §9).
      const principal = await requireMcpPrincipal(c);
      await enforceRateLimit(c, "mcp", principal.memberId);
      // The member's own record, from the per-instance cache keyed by its record version (read
      // strongly with the credential when it could be: one getMany per call).
      loadRecord = () => deps.access.records.load(principal.memberId, principal.recordVersion);
    } else {
      await enforceRateLimit(c, "mcp-meta", c.get("clientIp"));
      loadRecord = () => {
        throw new AppError("unauthorized", "tools/call needs a bearer token.");
      };
    }

    const toolName = methodOf(message) === "tools/call"
      ? (message as { params?: { name?: unknown } }).params?.name
      : undefined;
    if (typeof toolName === "string") applyDeprecation(c, "tool", toolName);

    const r = await handleMcpMessage(message, {
      identity: identityOf(c, sandbox),
      synthetic: sandbox,
      protocolVersionHeader: c.req.header("mcp-protocol-version") ?? null,
      mcpMethodHeader: c.req.header("mcp-method") ?? null,
      mcpNameHeader: c.req.header("mcp-name") ?? null,
      loadRecord,
      requestId: c.get("requestId"),
    });
    return reply(c, r, sandbox);
  } catch (err) {
    const e = toAppError(err);
    if (e.code === "internal") console.error(`[${c.get("requestId")}] MCP transport failed:`, err);
    const data: Record<string, unknown> = {
      code: e.code,
      requestId: c.get("requestId"),
      ...e.details,
    };
    const res = reply(
      c,
      rpcError(
        idForErrors,
        e.code === "internal" ? RPC.INTERNAL_ERROR : RPC.INVALID_REQUEST,
        e.message,
        e.status,
        data,
        sandbox,
      ),
      sandbox,
    );
    if (
      e.code === "unauthorized" || e.code === "invalid_token" || e.code === "insufficient_scope"
    ) {
      res.headers.set("WWW-Authenticate", mcpChallenge(deps.config.baseUrl, c.req.path, e));
    }
    return addRetryAfter(res, e);
  }
}

function methodNotAllowed(c: AppContext, sandbox: boolean): Response {
  // Stateless server: no SSE stream (GET) and no session to delete (DELETE) → 405 (transports).
  const res = reply(
    c,
    rpcError(
      null,
      RPC.INVALID_REQUEST,
      `Method Not Allowed: ${c.req.method} ${canonicalPath(c.req.path)} accepts POST only.`,
      405,
      undefined,
      sandbox,
    ),
    sandbox,
  );
  res.headers.set("Allow", "POST");
  return res;
}

/** Route handlers for an MCP endpoint. */
export function mcpRouteHandlers(endpoint: "mcp" | "sandbox"): RouteHandlers {
  const sandbox = endpoint === "sandbox";
  return {
    POST: (c) => serveMcp(c, endpoint),
    GET: (c) => methodNotAllowed(c, sandbox),
    DELETE: (c) => methodNotAllowed(c, sandbox),
  };
}
