/**
 * The one tool registry. `tools/list`, the MCP manifest, the OpenAPI description, the
 * `mcp-tools` docs page and the CLI are all generated from `TOOLS` (DESIGN §9).
 */

import { z } from "zod";
import type { ToolDefinition } from "./define_tool.ts";
import type { JsonSchema } from "./json_schema.ts";
import { compactSchema, listedInputSchema, outlineOutputSchema } from "./compact_schema.ts";
import { listColumns } from "./list_columns.ts";
import { getOverview } from "./get_overview.ts";
import { getEntries } from "./get_entries.ts";
import { getAggregates } from "./get_aggregates.ts";
import { getSummaryStats } from "./get_summary_stats.ts";
import { getStreak } from "./get_streak.ts";
import { getHabitStrength } from "./get_habit_strength.ts";
import { getGoalProgress } from "./get_goal_progress.ts";
import { getPersonalBests } from "./get_personal_bests.ts";
import { getTrend } from "./get_trend.ts";
import { comparePeriods } from "./compare_periods.ts";
import { getWeekdayPattern } from "./get_weekday_pattern.ts";
import { getCorrelation } from "./get_correlation.ts";
import { findCorrelations } from "./find_correlations.ts";
import { getFactorEffect } from "./get_factor_effect.ts";
import { getAnomalies } from "./get_anomalies.ts";
import { getDataCoverage } from "./get_data_coverage.ts";
import { getCoachInsights } from "./get_coach_insights.ts";

/** All eighteen tools, in the order of domain-anchors §3.2. */
export const TOOLS: readonly ToolDefinition[] = [
  listColumns,
  getOverview,
  getEntries,
  getAggregates,
  getSummaryStats,
  getStreak,
  getHabitStrength,
  getGoalProgress,
  getPersonalBests,
  getTrend,
  comparePeriods,
  getWeekdayPattern,
  getCorrelation,
  findCorrelations,
  getFactorEffect,
  getAnomalies,
  getDataCoverage,
  getCoachInsights,
] as unknown as readonly ToolDefinition[];

/** Tools by name. */
export const TOOL_BY_NAME: ReadonlyMap<string, ToolDefinition> = new Map(
  TOOLS.map((t) => [t.name, t]),
);

/** The MCP `Tool` object (MCP 2025-11-25 server/tools). */
export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /**
   * DESIGN §9. `destructiveHint` stays although MCP 2025-11-25 `ToolAnnotations` gives it meaning
   * only when `readOnlyHint` is false: its default is true, and a client that reads it alone must
   * not take a read-only tool for a destructive one.
   */
  annotations: {
    readOnlyHint: true;
    destructiveHint: false;
    idempotentHint: true;
    openWorldHint: false;
  };
}

/**
 * zod → JSON Schema 2020-12, without `$schema` (MCP: absent `$schema` means 2020-12; it is also
 * the dialect of OpenAPI 3.1, which reuses this).
 */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as JsonSchema;
  return rest;
}

/**
 * Each tool's complete input schema in the lossless compact form, by tool name: the docs pages
 * and the MCP manifest carry no server instructions, so they show every argument's meaning in
 * place rather than leaving shared ones to `TOOL_CONVENTIONS` as `tools/list` does.
 */
export const DOCUMENTED_INPUT_SCHEMAS: ReadonlyMap<string, JsonSchema> = new Map(
  TOOLS.map((tool) => [
    tool.name,
    compactSchema(jsonSchemaOf(tool.input, "input"), false) as JsonSchema,
  ]),
);

/**
 * Builds the MCP descriptor of one tool from its documented input schema, both schemas as
 * `tools/list` sends them (compact_schema.ts; the title is sent once, at the top level, not again
 * in `annotations`).
 */
function describeTool(tool: ToolDefinition, input: JsonSchema): ToolDescriptor {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: listedInputSchema(input),
    outputSchema: outlineOutputSchema(jsonSchemaOf(tool.output, "output"), input),
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  };
}

/** Every descriptor, computed once at start-up (schemas never change at run time). */
export const TOOL_DESCRIPTORS: readonly ToolDescriptor[] = TOOLS.map((tool) =>
  describeTool(tool, DOCUMENTED_INPUT_SCHEMAS.get(tool.name)!)
);
