/** `list_columns`: the member's columns and how to read them. */

import { z } from "zod";
import { envelope } from "../analytics/common.ts";
import { listColumnRows, recordStart } from "../analytics/columns.ts";
import { defineTool } from "./define_tool.ts";
import { EnvelopeFields } from "./schemas.ts";
import { ColumnMetadata } from "../record/columns.ts";

const DEFINITION =
  "Lists every column in display order with its metadata as stored, first_date and last_date as the first and last day with any entry (value or skip), and days_logged as the number of days with a value (skips excluded); range spans the earliest entry of any column to today.";

const ColumnRow = ColumnMetadata.extend({
  first_date: z.string().nullable(),
  last_date: z.string().nullable(),
  days_logged: z.int(),
});

/** The `list_columns` tool. */
export const listColumns = defineTool({
  name: "list_columns",
  title: "List columns",
  description:
    "The member's columns (metrics): keys, units, goals, better-direction, missing-day policy and how much is logged. Call it first: the other tools take these keys, and it says how to read their values.",
  input: z.object({}).strict(),
  output: z.object({
    ...EnvelopeFields,
    day_start_offset_hours: z.number(),
    columns: z.array(ColumnRow),
  }),
  run(record) {
    return {
      ...envelope(record, { start: recordStart(record), end: record.today }, DEFINITION),
      day_start_offset_hours: record.dayStartOffsetHours,
      columns: listColumnRows(record),
    };
  },
});
