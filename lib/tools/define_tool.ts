/**
 * The shape of one MCP tool. Every tool is declared once with `defineTool`; the registry
 * (`registry.ts`) feeds `tools/list`, the manifest, OpenAPI, the docs page and the CLI from it.
 */

import { z } from "zod";
import type { MemberRecord } from "../record/types.ts";

/** One read-only tool over a member record. */
export interface ToolDefinition<
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodObject = z.ZodObject,
> {
  /** snake_case tool name (`[a-z_]+`), unique. */
  name: string;
  /** Human display name. */
  title: string;
  /** What the tool answers and when to use it; written for a model choosing a tool. */
  description: string;
  /** Input schema; `.strict()` so unknown arguments are refused. */
  input: Input;
  /** Output schema; every result is validated against it in tests. */
  output: Output;
  /**
   * Computes the result. Throws `AppError` (`unknown_metric`, `range_too_large`,
   * `invalid_request`) for tool-level failures; the MCP layer turns those into `isError` results.
   */
  run(record: MemberRecord, args: z.output<Input>): z.input<Output>;
}

/** Declares a tool with its types inferred from the schemas. */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  tool: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return tool;
}
