/**
 * Evidence: every number a finding quotes comes from running a tool exactly as an agent would,
 * and the finding names that call, so `evidence.tool` + `evidence.arguments` on the same record
 * reproduce `evidence.key_numbers` (issue #12 "every sentence … comes with the tool call").
 * Key numbers are addressed by a path into the tool's result (`current.length`,
 * `anomalies.0.value`), which is what the replay test reads back.
 */

import type { CoachInsight, MemberRecord } from "../record/types.ts";
import { runTool } from "../tools/run_tool.ts";

/** A tool's result as plain JSON. */
// deno-lint-ignore no-explicit-any
export type ToolResult = Record<string, any>;

/** The value at a dotted path (`a.b.0.c`) of a result; `undefined` when absent. */
export function valueAt(result: unknown, path: string): unknown {
  let node: unknown = result;
  for (const part of path.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** A finished tool call: its result and a builder for the evidence that cites it. */
export interface ToolCall {
  result: ToolResult;
  /** Evidence quoting the values at `paths` (each must exist in the result). */
  evidence(paths: string[]): CoachInsight["evidence"];
}

/**
 * Runs `name` on `record` with `args` through `runTool`, the one entry point MCP and the web API
 * use. Throws if the tool is unknown or refuses the arguments (a coach bug, never member data).
 */
export function callTool(
  record: MemberRecord,
  name: string,
  args: Record<string, unknown>,
): ToolCall {
  const outcome = runTool(record, name, args);
  if (outcome.kind !== "result") throw new Error(`coach: ${name}: ${outcome.error.message}`);
  const result = outcome.structured as ToolResult;
  return {
    result,
    evidence(paths) {
      const key_numbers: Record<string, unknown> = {};
      for (const path of paths) {
        const value = valueAt(result, path);
        if (value === undefined) throw new Error(`coach: ${name} has no ${path}`);
        key_numbers[path] = value;
      }
      return { tool: name, arguments: args, key_numbers };
    },
  };
}
