/**
 * Zod schemas of what the record store returns over `POST /api/proxy` (the `Profile`, `Column`,
 * `EntryView`, export and import shapes of store.ts and transfer.ts). The OpenAPI description is
 * generated from them and the contract test checks real responses against them, so the TypeScript
 * types and the published shapes cannot drift apart unnoticed.
 */

import { z } from "zod";
import { ColumnMetadata } from "./columns.ts";
import { PauseView } from "./pauses.ts";
import { IMPORT_FORMATS } from "./import_source.ts";

/** `Profile`: the profile fields a member can see and change. */
export const ProfileView = z.object({
  username: z.string(),
  displayName: z.string(),
  timezone: z.string(),
  units: z.enum(["metric", "imperial"]),
  dayStartOffsetHours: z.number(),
  createdAt: z.iso.datetime(),
}).strict();

/** `Column`: a column's metadata as stored. */
export const ColumnView = ColumnMetadata.strict();

/** `DayValue`: a value or an explicit skip (a missing day has no key at all). */
export const DayValueView = z.union([z.number(), z.boolean(), z.literal("skip")]);

/** `EntryView`: one day's entry. */
export const EntryViewSchema = z.object({
  date: z.iso.date(),
  values: z.record(z.string(), DayValueView),
  note: z.string().nullable(),
}).strict();

/** What `deleteEntry` answers. */
export const DeletedEntryView = z.object({ date: z.string(), deleted: z.boolean() }).strict();

/** `RecordExport` (format json) or the CSV export. */
export const RecordExportView = z.union([
  z.object({
    format: z.literal("json"),
    exportedAt: z.iso.datetime(),
    profile: ProfileView,
    columns: z.array(ColumnView),
    entries: z.array(EntryViewSchema),
    pauses: z.array(PauseView).meta({
      description: "Pauses: days that count as skipped where nothing is logged (not in entries).",
    }),
  }).strict(),
  z.object({
    format: z.literal("csv"),
    exportedAt: z.iso.datetime(),
    csv: z.string().meta({ description: "RFC 4180 CSV: a date column, one per column key, note." }),
  }).strict(),
]);

const RejectedRowView = z.object({
  line: z.int().meta({ description: "1-based line of the file (the header is line 1)." }),
  date: z.string(),
  reason: z.string(),
}).strict();

/** `ImportResult`: what `importRecord` answers, for a preview (`dryRun`) or a commit. */
export const ImportReportView = z.object({
  format: z.enum(IMPORT_FORMATS),
  committed: z.boolean().meta({ description: "False for a dryRun preview: nothing was written." }),
  onConflict: z.enum(["replace", "keep"]).meta({
    description:
      "What a day already logged keeps: replace takes the file's values, keep the logged.",
  }),
  rows: z.int().meta({ description: "Data rows in the file." }),
  days: z.int().meta({ description: "Valid days with data the file holds." }),
  changed: z.int().meta({ description: "Days the import writes (or would write)." }),
  unchanged: z.int().meta({ description: "Days already logged exactly so: not written again." }),
  imported: z.int().meta({ description: "Days written (0 for a preview)." }),
  parts: z.int().meta({
    description: "Atomic commits used (or needed): 1 up to 900 changed days, more beyond.",
  }),
  columns: z.array(z.string()).meta({ description: "The column keys the file writes." }),
  mapping: z.array(
    z.object({
      source: z.string(),
      key: z.string(),
      label: z.string(),
      type: z.enum(["number", "integer", "boolean", "scale", "duration_min", "time_of_day"]),
      unit: z.string().nullable(),
      create: z.boolean().meta({ description: "True when the import creates this column." }),
    }).strict(),
  ),
  createdColumns: z.array(z.string()),
  conflicts: z.array(
    z.object({
      date: z.string(),
      column: z.string(),
      stored: z.union([DayValueView, z.string()]),
      incoming: z.union([DayValueView, z.string()]),
    }).strict(),
  ).meta({ description: "Logged values the import replaces (first 200)." }),
  conflictCount: z.int(),
  errors: z.array(RejectedRowView).meta({ description: "Rejected rows (first 200)." }),
  errorCount: z.int(),
  notices: z.array(z.string()).meta({ description: "How the file was read, in plain words." }),
  moods: z.array(z.object({ label: z.string(), count: z.int(), value: z.int().nullable() }))
    .optional().meta({ description: "Daylio: each mood label and its place on the 1–5 scale." }),
  preview: z.array(
    z.object({
      date: z.iso.date(),
      values: z.record(z.string(), DayValueView),
      note: z.string().nullable(),
      status: z.enum(["new", "changed", "unchanged"]),
    }).strict(),
  ).meta({ description: "The newest 200 days as the import leaves them." }),
  firstDate: z.string().nullable(),
  lastDate: z.string().nullable(),
}).strict();
