/**
 * Evidence: every number a finding quotes comes from running a tool exactly as an agent would,
 * and the finding names that call, so `evidence.tool` + `evidence.arguments` on the same record
 * reproduce `evidence.key_numbers` (issue #12 "every sentence … comes with the tool call").
 * Key numbers are addressed by a path into the tool's result (`current.length`,
 * `anomalies.0.value`), which is what the replay test reads back.
 */

import type { CoachInsight, MemberRecord } from "../record/types.ts";
import { TOOL_BY_NAME } from "../tools/registry.ts";

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
 * Runs `name` on `record` with `args` through the tool's own input schema and `run`, exactly as
 * the MCP layer does. Throws if the tool is unknown or refuses the arguments (a coach bug).
 */
export function callTool(
  record: MemberRecord,
  name: string,
  args: Record<string, unknown>,
): ToolCall {
  const tool = TOOL_BY_NAME.get(name);
  if (!tool) throw new Error(`coach: unknown tool ${name}`);
  const result = tool.run(record, tool.input.parse(args) as never) as ToolResult;
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
