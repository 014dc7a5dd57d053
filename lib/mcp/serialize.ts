/**
 * The one place MCP replies become JSON. Results are spliced as text rather than re-serialised: a
 * cached result is kept as its JSON string (in ASCII: `toolResultJson`) and the reply is that
 * string inside the envelope. Text, not bytes: splicing bytes took a fresh buffer and a copy per
 * request, and the Response constructor copies a byte body once more, while a one-byte string body
 * is the cheapest one Deno sends (issue #13, measured). Nothing else in `lib/mcp/` builds JSON text.
 */

import type { AppError } from "../foundation/errors.ts";
import { toolErrorText, type ToolOutcome } from "../tools/run_tool.ts";
import { META_SYNTHETIC, type RpcId } from "./protocol.ts";

/** A JSON-RPC error response. */
export function errorJson(
  id: RpcId | null,
  error: { code: number; message: string; data?: Record<string, unknown> },
): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/** A JSON-RPC result response around a result already serialised. */
export function resultJson(id: RpcId, result: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
}

/** `result` with the sandbox marker in `_meta` when `synthetic` (DESIGN §9). */
function withMeta<T extends Record<string, unknown>>(result: T, synthetic: boolean): T {
  return synthetic ? { ...result, _meta: { [META_SYNTHETIC]: true } } : result;
}

/** A result object serialised (with the sandbox marker when `synthetic`). */
export function encodeResult(result: Record<string, unknown>, synthetic: boolean): string {
  return JSON.stringify(withMeta(result, synthetic));
}

/** How a `tools/call` result is framed. */
export interface ToolResultFraming {
  synthetic: boolean;
  /** 2026-07-28 results carry `resultType`. */
  perRequest: boolean;
}

/**
 * The `tools/call` result of a tool's outcome, serialised (the form the result cache keeps), in
 * ASCII: Deno sends a one-byte string body by a fast path and a string holding any character past
 * U+007F by a slower one (5–7 µs more a request on the hot path, measured), so such characters are
 * written as JSON `\u` escapes — the same JSON value.
 */
export function toolResultJson(
  outcome: Exclude<ToolOutcome, { kind: "unknown_tool" }>,
  framing: ToolResultFraming,
): string {
  return asciiJson(
    outcome.kind === "result"
      ? successJson(outcome.structured, framing)
      : failureJson(outcome.error, framing),
  );
}

const NON_ASCII = /[\u0080-\uffff]/g;
const HAS_NON_ASCII = /[\u0080-\uffff]/;

/**
 * JSON text with every non-ASCII character escaped. Outside strings JSON text is ASCII, and in a
 * string `\uXXXX` is that UTF-16 code unit (RFC 8259 §7), so the value is unchanged; a surrogate
 * pair becomes two escapes, as §7 writes it.
 */
export function asciiJson(json: string): string {
  if (!HAS_NON_ASCII.test(json)) return json;
  const escaped = json.replace(
    NON_ASCII,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  // V8 builds the replacement in its subject's two-byte form although every character is now
  // ASCII; decoding its bytes again gives a one-byte string, half the heap of a result the result
  // cache keeps and counts at one byte a character (issue #22, measured 2.02x before, 1.00x after).
  return ASCII_DECODER.decode(ASCII_ENCODER.encode(escaped));
}

const ASCII_ENCODER = new TextEncoder();
const ASCII_DECODER = new TextDecoder();

function successJson(structured: Record<string, unknown>, framing: ToolResultFraming): string {
  // The structured result appears twice (as text and as structuredContent): serialise it once.
  const text = JSON.stringify(structured);
  const meta = framing.synthetic ? `,"_meta":{"${META_SYNTHETIC}":true}` : "";
  const resultType = framing.perRequest ? `"resultType":"complete",` : "";
  return `{${resultType}"content":[{"type":"text","text":${
    JSON.stringify(text)
  }}],"structuredContent":${text},"isError":false${meta}}`;
}

function failureJson(error: AppError, framing: ToolResultFraming): string {
  const result: Record<string, unknown> = {
    content: [{ type: "text", text: toolErrorText(error) }],
    isError: true,
  };
  if (framing.perRequest) result.resultType = "complete";
  return encodeResult(result, framing.synthetic);
}
