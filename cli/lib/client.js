// @ts-check
import { CliError, EXIT } from "./errors.js";

/** The revision the CLI asks for in `initialize` and sends in `MCP-Protocol-Version`. */
export const PROTOCOL_VERSION = "2025-11-25";

/**
 * @typedef {object} Endpoint
 * @property {string} url the MCP endpoint
 * @property {string | undefined} token bearer token, for `/api/mcp`
 * @property {boolean} sandbox
 */

/**
 * The sandbox without a token; `/api/mcp` with one.
 * @param {string} baseUrl
 * @param {string | undefined} token
 * @returns {Endpoint}
 */
export function endpointFor(baseUrl, token) {
  return token
    ? { url: `${baseUrl}/api/mcp`, token, sandbox: false }
    : { url: `${baseUrl}/api/sandbox`, token: undefined, sandbox: true };
}

/**
 * How to get a token, printed whenever one is missing or refused.
 * @param {string} baseUrl
 */
export function tokenHelp(baseUrl) {
  return [
    "Get a read-scoped API token (it starts with rt_ro_):",
    `  1. POST ${baseUrl}/api/auth  {"action":"register","username":"…","password":"…"} → sessionToken`,
    `  2. POST ${baseUrl}/api/tokens with Authorization: Bearer <sessionToken>`,
    `     {"action":"create","name":"cli","scopes":["read"]} → the token`,
    `  or mint one under Settings in the web app: ${baseUrl}/app/settings#tokens`,
    "Then pass it with --token rt_ro_… or set ROUTINE_TRACKER_TOKEN.",
    `Without a token, leave --token out to use the sandbox (synthetic data). Details: ${baseUrl}/api`,
  ].join("\n");
}

/**
 * Turns a failed HTTP answer into a `CliError` with advice: 401/403 say how to get a token, 429
 * says how long to wait (from `Retry-After`).
 * @param {Response} res
 * @param {unknown} body parsed body, if any
 * @param {string} baseUrl
 * @returns {CliError}
 */
export function httpError(res, body, baseUrl) {
  const detail = describeBody(body);
  if (res.status === 429) {
    const retryAfter = res.headers.get("retry-after");
    const seconds = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    const wait = seconds !== undefined
      ? `Wait ${seconds} second${seconds === 1 ? "" : "s"} (Retry-After) and try again.`
      : "Wait a minute and try again.";
    const policy = res.headers.get("ratelimit-policy");
    return new CliError(
      `Rate limited (HTTP 429${policy ? `, policy ${policy}` : ""}). ${wait}`,
      EXIT.RATE_LIMITED,
    );
  }
  if (res.status === 401 || res.status === 403) {
    return new CliError(
      `The server refused the credential (HTTP ${res.status}${detail ? `: ${detail}` : ""}).\n${
        tokenHelp(baseUrl)
      }`,
      EXIT.AUTH,
    );
  }
  return new CliError(
    `${res.url} answered HTTP ${res.status} ${res.statusText}${detail ? `: ${detail}` : ""}`,
    EXIT.FAILURE,
  );
}

/**
 * The human part of an error body: a REST envelope or a JSON-RPC error.
 * @param {unknown} body
 * @returns {string}
 */
function describeBody(body) {
  if (!body || typeof body !== "object") return "";
  const b = /** @type {Record<string, any>} */ (body);
  if (b.error && typeof b.error === "object") {
    const code = b.error.data?.code;
    const id = b.error.data?.requestId;
    return `${b.error.message}${code ? ` [${code}]` : ""}${id ? ` (requestId ${id})` : ""}`;
  }
  if (typeof b.error === "string") {
    return `${b.error}${b.code ? ` [${b.code}]` : ""}${
      b.requestId ? ` (requestId ${b.requestId})` : ""
    }`;
  }
  return "";
}

/**
 * `fetch` that turns network failures into a readable `CliError`.
 * @param {string} url
 * @param {RequestInit} [init]
 * @returns {Promise<Response>}
 */
export async function request(url, init) {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = /** @type {any} */ (err)?.cause?.code ?? /** @type {Error} */
      (err).message;
    throw new CliError(
      `Cannot reach ${url} (${cause}). Is the service running? Check --base-url.`,
    );
  }
}

let nextId = 1;

/**
 * Sends one JSON-RPC message to an MCP endpoint and returns the `result`. A notification (no
 * `id`) returns the HTTP status instead.
 * @param {Endpoint} endpoint
 * @param {string} baseUrl
 * @param {string} method
 * @param {Record<string, unknown>} [params]
 * @param {{ notification?: boolean, protocolHeader?: boolean }} [options]
 * @returns {Promise<any>}
 */
export async function rpc(endpoint, baseUrl, method, params, options = {}) {
  /** @type {Record<string, unknown>} */
  const message = { jsonrpc: "2.0", method };
  if (!options.notification) message.id = nextId++;
  if (params) message.params = params;
  /** @type {Record<string, string>} */
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "User-Agent": "routine-tracker-cli",
  };
  if (options.protocolHeader !== false) {
    headers["MCP-Protocol-Version"] = PROTOCOL_VERSION;
  }
  if (endpoint.token) headers.Authorization = `Bearer ${endpoint.token}`;
  const res = await request(endpoint.url, {
    method: "POST",
    headers,
    body: JSON.stringify(message),
  });
  if (options.notification) {
    if (!res.ok) throw httpError(res, await readJson(res), baseUrl);
    return res.status;
  }
  const body = await readJson(res);
  if (!res.ok) throw httpError(res, body, baseUrl);
  if (!body || typeof body !== "object") {
    throw new CliError(
      `${endpoint.url} did not answer JSON (HTTP ${res.status}).`,
    );
  }
  if (body.error) {
    const data = body.error.data ?? {};
    const extra = data.supported ? ` Supported: ${data.supported.join(", ")}.` : "";
    throw new CliError(
      `${method} failed: ${body.error.message} (JSON-RPC ${body.error.code}).${extra}`,
    );
  }
  return body.result;
}

/**
 * @param {Response} res
 * @returns {Promise<any>}
 */
async function readJson(res) {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
