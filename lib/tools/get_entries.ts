/** `get_entries`: raw day-by-day values, paged. */

import { z } from "zod";
import { envelope, findColumn, resolveWindow } from "../analytics/common.ts";
import { pageEntries } from "../analytics/entries.ts";
import { defineTool } from "./define_tool.ts";
import { EnvelopeFields, KEY_MAX_LENGTH, MetricName, RangeArgs } from "./schemas.ts";
import { MAX_SPAN_DAYS } from "../record/columns.ts";

/** Page size when `limit` is not given. */
export const DEFAULT_PAGE_DAYS = 31;

const DEFINITION =
  'Returns one row per member-local date in the inclusive range (default the 31 days ending today), newest first unless order is asc, with each requested column\'s logged value, "skip" for an explicit skip, or null when nothing was logged (never imputed), paged by an opaque cursor.';

/** The `get_entries` tool. */
export const getEntries = defineTool({
  name: "get_entries",
  title: "Raw entries",
  description:
    'Day-by-day values exactly as logged (a value, "skip", or null when missing) for some or all columns over a date range, paged with next_cursor. For reading or quoting the data; the analytics tools summarise it.',
  input: z.object({
    metrics: z.array(MetricName).min(1).max(64).optional().meta({
      description: "Column keys to include (default all active columns).",
    }),
    ...RangeArgs,
    limit: z.int().min(1).max(MAX_SPAN_DAYS).default(DEFAULT_PAGE_DAYS).meta({
      description: "Days per page.",
    }),
    cursor: z.string().min(1).max(KEY_MAX_LENGTH).optional().meta({
      description: "next_cursor from the previous page; repeat the other arguments unchanged.",
    }),
    order: z.enum(["asc", "desc"]).default("desc").meta({
      description: '"desc" newest first, "asc" oldest first.',
    }),
  }).strict(),
  output: z.object({
    ...EnvelopeFields,
    metrics: z.array(z.string()),
    order: z.enum(["asc", "desc"]),
    rows: z.array(z.object({
      date: z.string(),
      weekday: z.string(),
      values: z.record(
        z.string(),
        z.union([z.number(), z.boolean(), z.literal("skip")]).nullable(),
      ),
      notes: z.string().optional(),
    })),
    next_cursor: z.string().nullable(),
  }),
  run(record, args) {
    const columns = args.metrics
      ? args.metrics.map((m) => findColumn(record, m))
      : record.columns.filter((c) => !c.archived);
    const range = resolveWindow(record, { start: args.start, end: args.end }, DEFAULT_PAGE_DAYS);
    const page = pageEntries({
      record,
      columns,
      range,
      options: {
        limit: args.limit,
        cursor: args.cursor,
        order: args.order,
      },
    });
    return {
      ...envelope(record, range, DEFINITION),
      metrics: columns.map((c) => c.key),
      order: args.order,
      rows: page.rows,
      next_cursor: page.nextCursor,
    };
  },
});
