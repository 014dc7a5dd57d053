/**
 * Runs one of the eighteen tools on a record: the one entry point MCP (`lib/mcp/server.ts`), the
 * web API's `callTool` action, the web app and the coach share, so every caller gets identical
 * results (DESIGN §8). The outcome is typed data, never JSON: each caller maps it to its own
 * protocol (an MCP result or JSON-RPC error, a REST body).
 */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import type { MemberRecord } from "../record/types.ts";
import { TOOL_BY_NAME } from "./registry.ts";

/** What running a tool produced. */
export type ToolOutcome =
  /** The tool's output (`Tool_<name>_Output`). */
  | { kind: "result"; structured: Record<string, unknown> }
  /**
   * Bad arguments or a tool-level failure (`unknown_metric`, `range_too_large`, …): MCP reports
   * it as a result with `isError: true` so a model can correct itself (MCP server/tools, SEP-1303).
   */
  | { kind: "tool_error"; error: AppError }
  /** No tool of that name: the caller's mistake, not the tool's (MCP server/tools §Error Handling). */
  | { kind: "unknown_tool"; error: AppError };

/**
 * Validates `args` against the tool's input schema and runs it on `record`. Expected failures are
 * outcomes; anything else (a bug) is thrown for the caller's internal-error path.
 */
export function runTool(
  record: MemberRecord,
  name: string,
  args: Record<string, unknown>,
): ToolOutcome {
  const tool = TOOL_BY_NAME.get(name);
  if (!tool) {
    return {
      kind: "unknown_tool",
      error: new AppError("invalid_request", `Unknown tool: ${name}`, {
        details: { tools: [...TOOL_BY_NAME.keys()] },
      }),
    };
  }
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    return {
      kind: "tool_error",
      error: new AppError(
        "invalid_request",
        `Invalid arguments for ${name}: ${z.prettifyError(parsed.error)}`,
        { details: { issues } },
      ),
    };
  }
  try {
    return { kind: "result", structured: tool.run(record, parsed.data) as Record<string, unknown> };
  } catch (err) {
    if (err instanceof AppError) return { kind: "tool_error", error: err };
    throw err;
  }
}

/** The readable form of a failed call: the error as JSON a model can read and act on. */
export function toolErrorText(error: AppError): string {
  return JSON.stringify({ error: { code: error.code, message: error.message, ...error.details } });
}
