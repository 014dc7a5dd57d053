/**
 * The pause actions of `/api/proxy` (issue #25): list, create and delete the member's pauses
 * (lib/record/pauses.ts). The Pauses page runs these same actions (`runPageAction`).
 */

import { z } from "zod";
import { createPause, deletePause, listPauses, PauseInput, PauseView } from "../record/pauses.ts";
import { action, type ActionContext } from "./action_table.ts";

function storeOf(ctx: ActionContext) {
  return { kv: ctx.kv, clock: ctx.clock, coachDebounceMs: ctx.coachDebounceMs };
}

/** The pause actions, spread into `PROXY_ACTIONS`. */
export const PAUSE_ACTIONS = {
  listPauses: action({
    credential: "member",
    writes: false,
    output: z.object({ pauses: z.array(PauseView) }).strict(),
    input: z.object({}).strict(),
    run: async (ctx, _input, caller) => ({ pauses: await listPauses(ctx.kv, caller.memberId) }),
  }),
  createPause: action({
    errors: ["invalid_date", "unknown_column", "conflict"],
    credential: "member",
    writes: true,
    output: z.object({ pause: PauseView }).strict(),
    // Days from start to end count as skipped in the chosen columns (absent: every column).
    input: PauseInput,
    run: async (ctx, input, caller) => ({
      pause: await createPause(storeOf(ctx), caller.memberId, input),
    }),
  }),
  deletePause: action({
    errors: ["not_found", "conflict"],
    credential: "member",
    writes: true,
    output: z.object({ pause: PauseView }).strict(),
    input: z.object({ id: z.string().min(1).max(64) }).strict(),
    run: async (ctx, { id }, caller) => ({
      pause: await deletePause(storeOf(ctx), caller.memberId, id),
    }),
  }),
};
