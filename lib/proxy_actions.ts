/**
 * The member actions of `POST /api/proxy` (DESIGN §8), each with its zod payload schema. The route
 * authenticates and hands over `{action, ...fields}`; this module validates the fields, checks the
 * credential may do the action (API tokens are read-only: spec "API token"), and runs it on the
 * caller's own record. Nothing here can address another member's record: the member id comes only
 * from the credential.
 */

import { z } from "zod";
import type { MemberAccess } from "./accounts/member_access.ts";
import type { Clock } from "./clock.ts";
import { AppError } from "./errors.ts";
import { handleMcpMessage, replyMessage } from "./mcp/server.ts";
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
} from "./record/store.ts";
import { exportRecord, importRecord, readableDay } from "./record/transfer.ts";
import { listGrants, revokeGrant, revokeGrantsOfClient } from "./oauth/grants.ts";
import { dismissInsight } from "./coach/run.ts";
import { GrantSummaryView } from "./oauth/messages.ts";
import {
  ColumnView,
  DeletedEntryView,
  EntryViewSchema,
  ImportReportView,
  ProfileView,
  RecordExportView,
} from "./record/views.ts";

/** What `callTool` answers: the MCP `tools/call` result, flattened (see callToolOnOwnRecord). */
export const ToolResultView = z.object({
  name: z.string(),
  isError: z.boolean().optional(),
  structuredContent: z.record(z.string(), z.unknown()).nullable().meta({
    description: "The tool's output (`Tool_<name>_Output`), or null when isError is true.",
  }),
  content: z.array(z.object({ type: z.literal("text"), text: z.string() }).strict()),
}).strict();

/** Who is calling, as the route established it. */
export interface ProxyCaller {
  memberId: string;
  /** Sessions may write; API tokens (scope `read`) may only read. */
  credential: "session" | "api_token";
}

/** What an action needs from the app. */
export interface ProxyContext {
  kv: Deno.Kv;
  clock: Clock;
  access: MemberAccess;
  version: string;
  baseUrl: string;
  /** Coach debounce after a write (config `coachDebounceMs`). */
  coachDebounceMs?: number;
}

const DateField = z.string().max(40);
const Note = z.string().max(2000).nullable();

interface ActionSpec<S extends z.ZodType> {
  /** True when the action changes the record (sessions only). */
  writes: boolean;
  /** The fields besides `action`, parsed before `run`. */
  input: S;
  /** What `run` answers; the OpenAPI description and the contract test use it. */
  output: z.ZodType;
  run(
    ctx: ProxyContext,
    store: StoreContext,
    memberId: string,
    input: z.infer<S>,
  ): Promise<unknown>;
}

function action<S extends z.ZodType>(spec: ActionSpec<S>): ActionSpec<S> {
  return spec;
}

const Empty = z.object({}).strict();

/** Every member action, by name. `healthCheck` is the route's own (lib/health.ts). */
export const PROXY_ACTIONS = {
  getProfile: action({
    writes: false,
    output: ProfileView,
    input: Empty,
    run: (ctx, _s, memberId) => getProfile(ctx.kv, memberId),
  }),
  updateProfile: action({
    writes: true,
    output: ProfileView,
    input: ProfilePatch,
    run: (_c, store, memberId, patch) => updateProfile(store, memberId, patch),
  }),
  listColumns: action({
    writes: false,
    output: z.object({ columns: z.array(ColumnView) }).strict(),
    input: Empty,
    run: async (ctx, _s, memberId) => ({ columns: await listColumns(ctx.kv, memberId) }),
  }),
  createColumn: action({
    writes: true,
    output: z.object({ column: ColumnView }).strict(),
    input: ColumnCreate,
    run: async (_c, store, memberId, input) => ({
      column: await createColumn(store, memberId, input),
    }),
  }),
  updateColumn: action({
    writes: true,
    output: z.object({ column: ColumnView }).strict(),
    input: ColumnPatch.extend({ key: z.string().max(40) }).strict(),
    run: async (_c, store, memberId, { key, ...patch }) => ({
      column: await updateColumn(store, memberId, key, patch),
    }),
  }),
  archiveColumn: action({
    writes: true,
    output: z.object({ column: ColumnView }).strict(),
    input: z.object({ key: z.string().max(40), archived: z.boolean().default(true) }).strict(),
    run: async (_c, store, memberId, { key, archived }) => ({
      column: await updateColumn(store, memberId, key, { archived }),
    }),
  }),
  getEntries: action({
    writes: false,
    output: z.object({ entries: z.array(EntryViewSchema) }).strict(),
    input: z.object({ start: DateField, end: DateField }).strict(),
    run: async (ctx, _s, memberId, { start, end }) => ({
      entries: await getEntries(ctx.kv, memberId, readableDay(start), readableDay(end)),
    }),
  }),
  saveEntry: action({
    writes: true,
    output: z.object({ entry: EntryViewSchema }).strict(),
    input: z.object({
      date: DateField,
      values: z.record(z.string().max(40), ValueInput).refine(
        (v) => Object.keys(v).length <= 64,
        "At most 64 values.",
      ),
      note: Note.optional(),
    }).strict(),
    run: async (_c, store, memberId, { date, values, note }) => ({
      entry: await saveEntry(store, memberId, date, values, note),
    }),
  }),
  skipDay: action({
    writes: true,
    output: z.object({ entry: EntryViewSchema }).strict(),
    input: z.object({
      date: DateField,
      columns: z.array(z.string().max(40)).min(1).max(64).optional(),
    }).strict(),
    run: async (_c, store, memberId, { date, columns }) => ({
      entry: await skipDay(store, memberId, date, columns),
    }),
  }),
  deleteEntry: action({
    writes: true,
    output: DeletedEntryView,
    input: z.object({ date: DateField }).strict(),
    run: (_c, store, memberId, { date }) => deleteEntry(store, memberId, date),
  }),
  callTool: action({
    writes: false,
    output: ToolResultView,
    input: z.object({
      name: z.string().min(1).max(64),
      arguments: z.record(z.string(), z.unknown()).default({}),
    }).strict(),
    run: (ctx, _s, memberId, input) =>
      callToolOnOwnRecord(ctx, memberId, input.name, input.arguments),
  }),
  exportRecord: action({
    writes: false,
    output: RecordExportView,
    input: z.object({ format: z.enum(["json", "csv"]).default("json") }).strict(),
    run: (_c, store, memberId, { format }) => exportRecord(store, memberId, format),
  }),
  importRecord: action({
    writes: true,
    output: ImportReportView,
    input: z.object({ csv: z.string().min(1) }).strict(),
    run: (_c, store, memberId, { csv }) => importRecord(store, memberId, csv),
  }),
  listGrants: action({
    writes: false,
    output: z.object({ grants: z.array(GrantSummaryView) }).strict(),
    input: Empty,
    // Connected OAuth apps (Route B): one grant per approved authorization (issue #4).
    run: async (ctx, _s, memberId) => ({ grants: await listGrants(ctx.kv, memberId) }),
  }),
  revokeGrant: action({
    writes: true,
    output: z.object({ revoked: z.int().min(1) }).strict(),
    // By grant (one connection) or by client (every connection of that app).
    input: z.union([
      z.object({ grantId: z.string().min(1).max(200) }).strict(),
      z.object({ clientId: z.string().min(1).max(2000) }).strict(),
    ]),
    // Immediate on every instance: every access-token check reads the grant (lib/oauth/grants.ts).
    run: async (ctx, _s, memberId, input) => {
      const revoked = "grantId" in input
        ? (await revokeGrant(ctx.kv, memberId, input.grantId) ? 1 : 0)
        : await revokeGrantsOfClient(ctx.kv, memberId, input.clientId);
      if (revoked === 0) throw new AppError("not_found", "No such connected app.");
      return { revoked };
    },
  }),
  dismissInsight: action({
    writes: true,
    output: z.object({ dismissed: z.string() }).strict(),
    // A coach finding by its id (get_coach_insights); the coach never stores that id again.
    input: z.object({ id: z.string().min(1).max(64) }).strict(),
    run: async (ctx, _s, memberId, { id }) => {
      if (!(await dismissInsight(ctx.kv, memberId, { id }))) {
        throw new AppError("not_found", "No coach finding has that id.");
      }
      return { dismissed: id };
    },
  }),
} as const;

/** A member action's name. */
export type ProxyActionName = keyof typeof PROXY_ACTIONS;

/** Whether `name` is a member action. */
export function isProxyAction(name: string): name is ProxyActionName {
  return Object.hasOwn(PROXY_ACTIONS, name);
}

/**
 * Runs one member action for `caller`. Throws `unknown_action`, `forbidden` (a write with an API
 * token), `invalid_request` (payload) or the action's own errors.
 *
 * @param ctx app dependencies
 * @param caller the authenticated member and credential kind
 * @param body the request body, `action` included
 */
export async function runProxyAction(
  ctx: ProxyContext,
  caller: ProxyCaller,
  body: { action: string } & Record<string, unknown>,
): Promise<unknown> {
  const { action: name, ...fields } = body;
  if (!isProxyAction(name)) {
    throw new AppError("unknown_action", `Unknown action "${name.slice(0, 64)}".`, {
      details: { actions: ["healthCheck", ...Object.keys(PROXY_ACTIONS)] },
    });
  }
  const spec = PROXY_ACTIONS[name] as ActionSpec<z.ZodType>;
  if (spec.writes && caller.credential !== "session") {
    // API tokens are read-only today (spec "API token"); writes need a signed-in session.
    throw new AppError(
      "insufficient_scope",
      `Action "${name}" changes the record; it needs a session token, not a read-only API token.`,
    );
  }
  const input = spec.input.parse(fields);
  const store: StoreContext = {
    kv: ctx.kv,
    clock: ctx.clock,
    coachDebounceMs: ctx.coachDebounceMs,
  };
  return await spec.run(ctx, store, caller.memberId, input);
}

/**
 * Runs one of the eighteen tools on the caller's record through the MCP engine itself, so the web
 * app and agents get identical results (DESIGN §8 `callTool`).
 */
async function callToolOnOwnRecord(
  ctx: ProxyContext,
  memberId: string,
  name: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const reply = await handleMcpMessage(
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
    {
      identity: {
        name: "routine-tracker",
        title: "Routine Tracker",
        version: ctx.version,
        description: "",
        websiteUrl: `${ctx.baseUrl}/docs/mcp`,
        instructions: "",
      },
      synthetic: false,
      protocolVersionHeader: null,
      mcpMethodHeader: null,
      mcpNameHeader: null,
      loadRecord: () => ctx.access.records.load(memberId),
      requestId: "proxy",
    },
  );
  // deno-lint-ignore no-explicit-any
  const message = replyMessage(reply) as any;
  if (message.error) {
    throw new AppError(
      /Unknown tool/.test(message.error.message) ? "invalid_request" : "internal",
      message.error.message,
      { details: message.error.data?.tools ? { tools: message.error.data.tools } : undefined },
    );
  }
  const result = message.result;
  return {
    name,
    isError: result.isError,
    structuredContent: result.structuredContent ?? null,
    content: result.content,
  };
}
