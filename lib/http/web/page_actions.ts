/**
 * Every write of a web-app page (DESIGN §14: nothing implemented twice): `runPageAction` runs an
 * action of the same endpoint tables REST serves (lib/actions/endpoints.ts: `/api/auth`,
 * `/api/tokens`, `/api/proxy`), under the same rate-limit policy and key, with the page's session
 * as the caller — so a page spends exactly the quota its REST twin spends, and a page controller
 * never counts a quota or calls lib/accounts by hand (tests/page_actions_test.ts scans for it).
 */

import type { ActionSpec, Caller, SessionCaller } from "../../actions/action_table.ts";
import type { AUTH_ACTIONS } from "../../actions/auth_actions.ts";
import {
  type ActionEndpointSpec,
  AUTH_ENDPOINT,
  PROXY_ENDPOINT,
  TOKENS_ENDPOINT,
} from "../../actions/endpoints.ts";
import type { PROXY_ACTIONS } from "../../actions/proxy_actions.ts";
import type { TOKEN_ACTIONS } from "../../actions/token_actions.ts";
import { AppError } from "../../foundation/errors.ts";
import { actionContext } from "../kernel/action_endpoint.ts";
import { type PageMember, SignInRequired, signInUrlFor } from "./browser_session.ts";
import type { AppContext } from "../kernel/define.ts";
import { enforceRateLimit } from "../kernel/rate_limit.ts";

/** The endpoints a page may act through, by the first part of an action's page name. */
const PAGE_ENDPOINTS: Readonly<Record<string, ActionEndpointSpec>> = {
  auth: AUTH_ENDPOINT,
  tokens: TOKENS_ENDPOINT,
  proxy: PROXY_ENDPOINT,
};

/** An action by `<endpoint>.<action>`, e.g. `proxy.saveEntry` or `tokens.create`. */
export type PageActionName =
  | `auth.${keyof typeof AUTH_ACTIONS}`
  | `tokens.${keyof typeof TOKEN_ACTIONS}`
  | `proxy.${keyof typeof PROXY_ACTIONS}`;

/**
 * Runs the action `name` for the page's member (`null` on a signed-out page: sign in, sign up):
 * the endpoint's rate limit on the key its REST route counts (the client IP for `auth`, the member
 * otherwise), the action's own zod payload, then its `run`. A page is always a signed-in session,
 * so it may call `session` actions and writes; signed out, only credential-free ones.
 * `options.idempotencyKey` stands for the request's `Idempotency-Key` header (a form's nonce).
 */
export async function runPageAction(
  c: AppContext,
  page: PageMember | null,
  name: PageActionName,
  input: Record<string, unknown> = {},
  options: { idempotencyKey?: string } = {},
): Promise<unknown> {
  const dot = name.indexOf(".");
  const endpoint = PAGE_ENDPOINTS[name.slice(0, dot)];
  const action = name.slice(dot + 1);
  const spec: ActionSpec | undefined = Object.hasOwn(endpoint.actions, action)
    ? endpoint.actions[action]
    : undefined;
  if (!spec) throw new AppError("unknown_action", `Unknown action "${action.slice(0, 64)}".`);
  if (spec.credential !== "none" && !page) throw new SignInRequired(signInUrlFor(c));
  const caller = spec.credential === "none" ? null : sessionCallerOf(page!);
  // The key `actionEndpoint` (lib/http/kernel/action_endpoint.ts) counts for the same request.
  const key = endpoint.limitBy === "ip"
    ? c.var.clientIp
    : caller
    ? caller.memberId
    : `ip:${c.var.clientIp}`;
  await enforceRateLimit(c, endpoint.policy, key);
  // A page form's one-time nonce travels as the `Idempotency-Key` its REST twin would send.
  const ctx = { ...actionContext(c, spec), ...options };
  return await spec.run(ctx, spec.input.parse(input), caller as never);
}

/** The page's session as an action's caller (it may write: spec "API token" vs session). */
function sessionCallerOf(page: PageMember): Caller & SessionCaller {
  return {
    memberId: page.memberId,
    credential: "session",
    sessionToken: page.sessionToken,
    expiresAt: page.expiresAt,
  };
}
