/** `get_data_coverage`: logging completeness, last entries and gaps per column. */

import { z } from "zod";
import { envelope, resolveWindow } from "../analytics/common.ts";
import { columnCoverage, overallCoverage } from "../analytics/coverage.ts";
import { defineTool } from "./define_tool.ts";
import { Days, EnvelopeFields, RangeArgs } from "./schemas.ts";

const DEFINITION =
  "For each active column, counted from its first entry within the inclusive range (a today with no entry yet is pending and left out): completeness = days_logged / (days considered − days_skipped), longest_gap = the longest run of consecutive days with no entry at all (ties → most recent), last_logged = the latest day with a value; overall.logging_streak counts consecutive days with any entry in any column ending today, or yesterday while today has none.";

/** The `get_data_coverage` tool. */
export const getDataCoverage = defineTool({
  name: "get_data_coverage",
  title: "Data coverage",
  description:
    "How completely each column was logged over a window (default 30 days): days logged and skipped, completeness, last logged date, longest gap, and the overall logging streak. Use it before trusting an analysis, or to spot metrics no longer logged.",
  input: z.object({ days: Days(30), ...RangeArgs }).strict(),
  output: z.object({
    ...EnvelopeFields,
    overall: z.object({ days_with_any_entry: z.int(), logging_streak: z.int() }),
    columns: z.array(z.object({
      metric: z.string(),
      first_date: z.string().nullable(),
      days_considered: z.int(),
      days_logged: z.int(),
      days_skipped: z.int(),
      completeness: z.number().nullable(),
      last_logged: z.string().nullable(),
      days_since_last: z.int().nullable(),
      longest_gap: z.object({ start: z.string(), end: z.string(), length: z.int() }).nullable(),
    })),
  }),
  run(record, args) {
    const range = resolveWindow(record, args, 30);
    return {
      ...envelope(record, range, DEFINITION),
      overall: overallCoverage(record, range),
      columns: record.columns.filter((c) => !c.archived).map((c) =>
        columnCoverage(record, c, range)
      ),
    };
  },
});
