/**
 * The member actions of `POST /api/proxy` (DESIGN §8), each with its zod payload schema. The route
 * authenticates and hands over `{action, ...fields}`; this module validates the fields, checks the
 * credential may do the action (API tokens are read-only: spec "API token"), and runs it on the
 * caller's own record. Nothing here can address another member's record: the member id comes only
 * from the credential.
 */

import { z } from "zod";
import { AppError } from "../foundation/errors.ts";
import {
  ColumnCreate,
  ColumnPatch,
  createColumn,
  deleteEntry,
  getEntries,
  getProfile,
  listColumns,
  ProfilePatch,
  saveEntry,
  skipDay,
  type StoreContext,
  updateColumn,
  updateProfile,
  ValueInput,
} from "../record/store.ts";
import { moveColumn } from "../record/column_order.ts";
import { deleteColumn } from "../record/column_delete.ts";
import { exportRecord, importRecord, type ImportRequest, readableDay } from "../record/transfer.ts";
import { IMPORT_FORMATS, MAX_IMPORT_BYTES } from "../record/import_source.ts";
import { listGrants, revokeGrant, revokeGrantsOfClient } from "../oauth/grants.ts";
import { GrantSummaryView } from "../oauth/messages.ts";
import {
  ColumnView,
  DeletedEntryView,
  EntryViewSchema,
  ImportReportView,
  ProfileView,
  RecordExportView,
} from "../record/views.ts";
import { runTool, toolErrorText, type ToolOutcome } from "../tools/run_tool.ts";
import { dismissInsight } from "../coach/run.ts";
import { action, type ActionContext } from "./action_table.ts";
import { REMINDER_ACTIONS } from "./reminder_actions.ts";
import { PAUSE_ACTIONS } from "./pause_actions.ts";
import {
  checkHealth,
  healthDeadlineMs,
  type HealthReport,
  HealthReportSchema,
  lateHealthReport,
} from "./health.ts";

/** What `callTool` answers: the tool outcome in the shape of an MCP `tools/call` result. */
export const ToolResultView = z.object({
  name: z.string(),
  isError: z.boolean().optional(),
  structuredContent: z.record(z.string(), z.unknown()).nullable().meta({
    description: "The tool's output (`Tool_<name>_Output`), or null when isError is true.",
  }),
  content: z.array(z.object({ type: z.literal("text"), text: z.string() }).strict()),
}).strict();

const DateField = z.string().max(40);
/** The longest note a day may carry (the Today page states it). */
export const MAX_NOTE_CHARS = 2000;
// No NUL: the CSV export carries notes, and the import refuses any NUL as "not a CSV text file"
// (lib/record/import_source.ts), so a stored NUL made the member's own export unimportable.
const Note = z.string().max(MAX_NOTE_CHARS).regex(
  /^[^\0]*$/,
  "A note cannot contain a NUL character.",
)
  .nullable();

/** The record store's context for an action. */
function storeOf(ctx: ActionContext): StoreContext {
  return { kv: ctx.kv, clock: ctx.clock, coachDebounceMs: ctx.coachDebounceMs };
}

const Empty = z.object({}).strict();

/** `importRecord`: one file in one of the import formats, as text or (Loop's zip) base64. */
const ImportInput = z.object({
  format: z.enum(IMPORT_FORMATS).default("routine-tracker").meta({
    description: "routine-tracker: our own CSV export; routine-tracker-json: our own JSON export " +
      "(as the text field json); loop: Loop Habit Tracker's Checkmarks.csv (or its export zip as " +
      "zipBase64); daylio: Daylio's CSV export.",
  }),
  csv: z.string().min(1).max(MAX_IMPORT_BYTES).optional(),
  json: z.string().min(1).max(MAX_IMPORT_BYTES).optional().meta({
    description: "routine-tracker-json only: the JSON export's text, as downloaded.",
  }),
  zipBase64: z.base64().min(1).max(Math.ceil(MAX_IMPORT_BYTES / 3) * 4).optional().meta({
    description: "Loop only: the export zip (Habits.csv + Checkmarks.csv), base64.",
  }),
  dryRun: z.boolean().default(false).meta({
    description: "Preview: report the mapping, conflicts and errors; write nothing.",
  }),
  moodScale: z.record(z.string().max(80), z.int().min(1).max(5)).optional().meta({
    description: "Daylio: mood label → 1–5, overriding the defaults (rad 5 … awful 1).",
  }),
  onConflict: z.enum(["replace", "keep"]).default("replace").meta({
    description: "A day already logged with another value: replace takes the file's, keep keeps " +
      "what was logged (the file only fills what is empty).",
  }),
}).strict().refine(
  (i) => [i.csv, i.zipBase64, i.json].filter((f) => f !== undefined).length === 1,
  { message: "Send exactly one of csv, zipBase64 and json." },
).refine((i) => i.zipBase64 === undefined || i.format === "loop", {
  message: "zipBase64 is only for format loop.",
}).refine((i) => (i.json === undefined) === (i.format !== "routine-tracker-json"), {
  message: "Format routine-tracker-json takes the field json, and only it does.",
});

function importRequestOf(input: z.infer<typeof ImportInput>): ImportRequest {
  const moodScale = Object.fromEntries(
    Object.entries(input.moodScale ?? {}).map(([k, v]) => [k.trim().toLowerCase(), v]),
  );
  const file = input.csv ?? input.json ??
    Uint8Array.from(atob(input.zipBase64!), (ch) => ch.charCodeAt(0));
  const { format, dryRun, onConflict } = input;
  return { format, file, dryRun, moodScale, onConflict };
}

/**
 * Every action of `/api/proxy`, by name (DESIGN §8). `healthCheck` needs no credential (spec
 * "POST /api/proxy"); every other action acts on the caller's own record, whose member id comes
 * only from the credential, so nothing here can address another member's record.
 */
export const PROXY_ACTIONS = {
  healthCheck: action({
    credential: "none",
    writes: false,
    output: HealthReportSchema,
    // Only `action` is defined; extra fields are ignored (spec "Action healthCheck: no other fields").
    input: z.object({}).loose(),
    status: (report: HealthReport) => report.status === "healthy" ? 200 : 503,
    run: async (ctx) => {
      const { report, checks } = await checkHealth(ctx.kv, ctx.clock, ctx.version);
      // The spec's four fields for anyone; which dependency failed for the operator only.
      return ctx.isOperator() ? { ...report, checks } : report;
    },
    // Its own deadline (issue #21): a load balancer's probe must hear "unhealthy" in time.
    late: {
      ms: (ctx) => healthDeadlineMs(ctx.kv),
      answer: (ctx) => lateHealthReport(ctx.clock, ctx.version),
    },
  }),
  getProfile: action({
    credential: "member",
    writes: false,
    output: ProfileView,
    input: Empty,
    run: (ctx, _input, caller) => getProfile(ctx.kv, caller.memberId),
  }),
  updateProfile: action({
    errors: ["conflict"],
    credential: "member",
    writes: true,
    output: ProfileView,
    input: ProfilePatch,
    run: (ctx, patch, caller) => updateProfile(storeOf(ctx), caller.memberId, patch),
  }),
  listColumns: action({
    credential: "member",
    writes: false,
    output: z.object({ columns: z.array(ColumnView) }).strict(),
    input: Empty,
    run: async (ctx, _input, caller) => ({ columns: await listColumns(ctx.kv, caller.memberId) }),
  }),
  createColumn: action({
    errors: ["column_exists", "too_many_columns", "conflict"],
    credential: "member",
    writes: true,
    output: z.object({ column: ColumnView }).strict(),
    input: ColumnCreate,
    run: async (ctx, input, caller) => ({
      column: await createColumn(storeOf(ctx), caller.memberId, input),
    }),
  }),
  updateColumn: action({
    errors: ["unknown_column", "conflict"],
    credential: "member",
    writes: true,
    output: z.object({ column: ColumnView }).strict(),
    input: ColumnPatch.extend({ key: z.string().max(40) }).strict(),
    run: async (ctx, { key, ...patch }, caller) => ({
      column: await updateColumn({ ctx: storeOf(ctx), memberId: caller.memberId, key, patch }),
    }),
  }),
  archiveColumn: action({
    errors: ["unknown_column", "conflict"],
    credential: "member",
    writes: true,
    output: z.object({ column: ColumnView }).strict(),
    input: z.object({ key: z.string().max(40), archived: z.boolean().default(true) }).strict(),
    run: async (ctx, { key, archived }, caller) => ({
      column: await updateColumn({
        ctx: storeOf(ctx),
        memberId: caller.memberId,
        key,
        patch: { archived },
      }),
    }),
  }),
  moveColumn: action({
    errors: ["unknown_column", "conflict"],
    credential: "member",
    writes: true,
    output: z.object({ columns: z.array(ColumnView) }).strict(),
    // The display order (Today, History, list_columns); the Columns page's up/down buttons.
    input: z.object({ key: z.string().max(40), direction: z.enum(["up", "down"]) }).strict(),
    run: async (ctx, { key, direction }, caller) => ({
      columns: await moveColumn(storeOf(ctx), caller.memberId, key, direction === "up" ? -1 : 1),
    }),
  }),
  deleteColumn: action({
    errors: ["unknown_column", "conflict"],
    credential: "member",
    writes: true,
    output: z.object({ key: z.string(), deletedValues: z.int().min(0) }).strict(),
    // Issue #25: the column AND every value logged in it, for good (archiveColumn keeps them).
    input: z.object({ key: z.string().max(40) }).strict(),
    run: (ctx, { key }, caller) => deleteColumn(storeOf(ctx), caller.memberId, key),
  }),
  getEntries: action({
    errors: ["invalid_date", "range_too_large"],
    credential: "member",
    writes: false,
    output: z.object({ entries: z.array(EntryViewSchema) }).strict(),
    input: z.object({ start: DateField, end: DateField }).strict(),
    run: async (ctx, { start, end }, caller) => ({
      entries: await getEntries({
        kv: ctx.kv,
        memberId: caller.memberId,
        start: readableDay(start),
        end: readableDay(end),
      }),
    }),
  }),
  saveEntry: action({
    errors: ["invalid_date", "unknown_column", "invalid_value", "conflict"],
    credential: "member",
    writes: true,
    idempotent: true,
    output: z.object({ entry: EntryViewSchema }).strict(),
    input: z.object({
      date: DateField,
      values: z.record(z.string().max(40), ValueInput).refine(
        (v) => Object.keys(v).length <= 64,
        "At most 64 values.",
      ),
      note: Note.optional(),
    }).strict(),
    run: async (ctx, { date, values, note }, caller) => ({
      entry: await saveEntry({
        ctx: storeOf(ctx),
        memberId: caller.memberId,
        date,
        values,
        note,
        idempotencyKey: ctx.idempotencyKey,
      }),
    }),
  }),
  skipDay: action({
    errors: ["invalid_date", "unknown_column", "conflict"],
    credential: "member",
    writes: true,
    idempotent: true,
    output: z.object({ entry: EntryViewSchema }).strict(),
    input: z.object({
      date: DateField,
      columns: z.array(z.string().max(40)).min(1).max(64).optional(),
    }).strict(),
    run: async (ctx, { date, columns }, caller) => ({
      entry: await skipDay({
        ctx: storeOf(ctx),
        memberId: caller.memberId,
        date,
        columnKeys: columns,
        idempotencyKey: ctx.idempotencyKey,
      }),
    }),
  }),
  deleteEntry: action({
    errors: ["invalid_date", "not_found", "conflict"],
    credential: "member",
    writes: true,
    output: DeletedEntryView,
    input: z.object({ date: DateField }).strict(),
    run: (ctx, { date }, caller) => deleteEntry(storeOf(ctx), caller.memberId, date),
  }),
  callTool: action({
    credential: "member",
    writes: false,
    output: ToolResultView,
    input: z.object({
      name: z.string().min(1).max(64),
      arguments: z.record(z.string(), z.unknown()).default({}),
    }).strict(),
    // The same runTool as MCP, so the web app and agents share one analytics engine (DESIGN §8).
    run: async (ctx, input, caller) => {
      const { record } = await ctx.access.records.load(caller.memberId);
      return toolResultView(input.name, runTool(record, input.name, input.arguments));
    },
  }),
  exportRecord: action({
    credential: "member",
    writes: false,
    output: RecordExportView,
    input: z.object({ format: z.enum(["json", "csv"]).default("json") }).strict(),
    run: (ctx, { format }, caller) => exportRecord(storeOf(ctx), caller.memberId, format),
  }),
  importRecord: action({
    errors: ["import_rejected", "unknown_column", "conflict"],
    credential: "member",
    writes: true,
    output: ImportReportView,
    input: ImportInput,
    run: (ctx, input, caller) =>
      importRecord(storeOf(ctx), caller.memberId, importRequestOf(input)),
  }),
  listGrants: action({
    credential: "member",
    writes: false,
    output: z.object({ grants: z.array(GrantSummaryView) }).strict(),
    input: Empty,
    // Connected OAuth apps (Route B): one grant per approved authorization (issue #4).
    run: async (ctx, _input, caller) => ({ grants: await listGrants(ctx.kv, caller.memberId) }),
  }),
  revokeGrant: action({
    errors: ["not_found"],
    credential: "member",
    writes: true,
    output: z.object({ revoked: z.int().min(1) }).strict(),
    // By grant (one connection) or by client (every connection of that app).
    input: z.union([
      z.object({ grantId: z.string().min(1).max(200) }).strict(),
      z.object({ clientId: z.string().min(1).max(2000) }).strict(),
    ]),
    // Immediate on every instance: every access-token check reads the grant (lib/oauth/grants.ts).
    run: async ({ kv }, input, { memberId }) => {
      const revoked = "grantId" in input
        ? (await revokeGrant(kv, memberId, input.grantId) ? 1 : 0)
        : await revokeGrantsOfClient(kv, memberId, input.clientId);
      if (revoked === 0) throw new AppError("not_found", "No such connected app.");
      return { revoked };
    },
  }),
  dismissInsight: action({
    errors: ["not_found"],
    credential: "member",
    writes: true,
    output: z.object({ dismissed: z.string() }).strict(),
    // A coach finding by its id (get_coach_insights); the coach never stores that id again.
    input: z.object({ id: z.string().min(1).max(64) }).strict(),
    run: async (ctx, { id }, caller) => {
      if (!(await dismissInsight(ctx.kv, caller.memberId, { id }))) {
        throw new AppError("not_found", "No coach finding has that id.");
      }
      return { dismissed: id };
    },
  }),
  ...REMINDER_ACTIONS,
  ...PAUSE_ACTIONS,
} as const;

/** `callTool`'s answer: the outcome of `runTool`, in the shape of an MCP tool result. */
function toolResultView(name: string, outcome: ToolOutcome): z.input<typeof ToolResultView> {
  switch (outcome.kind) {
    case "unknown_tool":
      throw outcome.error;
    case "tool_error":
      return {
        name,
        isError: true,
        structuredContent: null,
        content: [{ type: "text", text: toolErrorText(outcome.error) }],
      };
    case "result":
      return {
        name,
        isError: false,
        structuredContent: outcome.structured,
        content: [{ type: "text", text: JSON.stringify(outcome.structured) }],
      };
  }
}
