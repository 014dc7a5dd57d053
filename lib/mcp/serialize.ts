/**
 * The one place MCP replies become JSON. Results are spliced as text or bytes rather than
 * re-serialised: a cached result is kept encoded, and encoding a few kB per request is measurable
 * on the hot path (reference/perf-anchors.md). Nothing else in `lib/mcp/` builds JSON text.
 */

import type { AppError } from "../foundation/errors.ts";
import { toolErrorText, type ToolOutcome } from "../tools/run_tool.ts";
import { META_SYNTHETIC, type RpcId } from "./protocol.ts";

const encoder = new TextEncoder();

/** A JSON-RPC error response. */
export function errorJson(
  id: RpcId | null,
  error: { code: number; message: string; data?: Record<string, unknown> },
): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/** A JSON-RPC result response around a result already serialised (text or UTF-8 bytes). */
export function resultJson(
  id: RpcId,
  result: string | Uint8Array<ArrayBuffer>,
): string | Uint8Array<ArrayBuffer> {
  if (typeof result === "string") {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
  }
  const head = encoder.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
  const body = new Uint8Array(head.byteLength + result.byteLength + 1);
  body.set(head, 0);
  body.set(result, head.byteLength);
  body[body.byteLength - 1] = 0x7d; // "}"
  return body;
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

/** The `tools/call` result of a tool's outcome, encoded (the form the result cache keeps). */
export function toolResultBytes(
  outcome: Exclude<ToolOutcome, { kind: "unknown_tool" }>,
  framing: ToolResultFraming,
): Uint8Array<ArrayBuffer> {
  return encoder.encode(
    outcome.kind === "result"
      ? successJson(outcome.structured, framing)
      : failureJson(outcome.error, framing),
  );
}

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
