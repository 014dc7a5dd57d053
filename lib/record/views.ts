/**
 * Zod schemas of what the record store returns over `POST /api/proxy` (the `Profile`, `Column`,
 * `EntryView`, export and import shapes of store.ts and transfer.ts). The OpenAPI description is
 * generated from them and the contract test checks real responses against them, so the TypeScript
 * types and the published shapes cannot drift apart unnoticed.
 */

import { z } from "zod";
import { ColumnMetadata } from "./columns.ts";

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
  }).strict(),
  z.object({
    format: z.literal("csv"),
    exportedAt: z.iso.datetime(),
    csv: z.string().meta({ description: "RFC 4180 CSV: a date column, one per column key, note." }),
  }).strict(),
]);

/** `ImportReport`: what a successful `importRecord` answers. */
export const ImportReportView = z.object({
  imported: z.int(),
  columns: z.array(z.string()),
  firstDate: z.string().nullable(),
  lastDate: z.string().nullable(),
}).strict();
