/**
 * One way to serve an action table (lib/actions/action_table.ts) as `POST <path>` with
 * `{action, ...fields}`: rate limit, credential, payload, run, JSON answer. `/api/auth`,
 * `/api/tokens` and `/api/proxy` differ only in their specs (lib/actions/endpoints.ts).
 */

import type {
  ActionContext,
  ActionSpec,
  Caller,
  Credential,
  SessionCaller,
} from "../actions/action_table.ts";
import { AppError } from "../foundation/errors.ts";
import type { ActionEndpointSpec } from "../actions/endpoints.ts";
import { requireMember, requireSession } from "./auth.ts";
import { readJsonBody } from "./body.ts";
import type { AppContext, RouteHandler } from "./define.ts";
import { applyDeprecation } from "./deprecation.ts";
import { enforceRateLimit, passwordGuessesOf } from "./rate_limit.ts";
import { isOperator } from "./operator.ts";

/** An endpoint (lib/actions/endpoints.ts) plus its HTTP effects. */
export interface ActionEndpointOptions extends ActionEndpointSpec {
  /** HTTP effects of a successful action, e.g. the session cookie of `/api/auth`. */
  respond?(c: AppContext, action: string, result: unknown): void;
}

/** The `POST` handler of an action endpoint. */
export function actionEndpoint(options: ActionEndpointOptions): RouteHandler {
  return async (c) => {
    let caller: Caller | null = options.requires === "session" ? await sessionCaller(c) : null;
    if (options.limitBy === "ip") await enforceRateLimit(c, options.policy, c.var.clientIp);
    else if (caller) await enforceRateLimit(c, options.policy, caller.memberId);
    const { action: name, ...fields } = options.request.parse(
      await readJsonBody(c, options.maxBodyBytes),
    );
    applyDeprecation(c, "action", `${options.path}#${name}`);
    const spec: ActionSpec | undefined = Object.hasOwn(options.actions, name)
      ? options.actions[name]
      : undefined;
    // An unknown action is refused only once the caller is known, as for any member action.
    caller ??= await authenticate(c, options, spec?.credential ?? "member");
    if (!spec) {
      throw new AppError("unknown_action", `Unknown action "${name.slice(0, 64)}".`, {
        details: { actions: Object.keys(options.actions) },
      });
    }
    if (spec.writes && caller?.credential !== "session") {
      // API tokens are read-only today (spec "API token"); writes need a signed-in session.
      throw new AppError(
        "insufficient_scope",
        `Action "${name}" changes the record; it needs a session token, not a read-only API token.`,
      );
    }
    const input = spec.input.parse(fields);
    if (options.noStore) c.header("Cache-Control", "no-store");
    const result = await spec.run(actionContext(c), input, caller as never);
    options.respond?.(c, name, result);
    return c.json(
      result as Record<string, unknown>,
      (spec.status?.(result as never) ?? 200) as 200,
    );
  };
}

/** Establishes the caller an action's credential needs and spends its quota. */
async function authenticate(
  c: AppContext,
  options: ActionEndpointOptions,
  credential: Credential,
): Promise<Caller | null> {
  const caller = credential === "none"
    ? null
    : credential === "session"
    ? await sessionCaller(c)
    : await requireMember(c);
  if (options.limitBy === "caller") {
    await enforceRateLimit(c, options.policy, caller ? caller.memberId : `ip:${c.var.clientIp}`);
  }
  return caller;
}

async function sessionCaller(c: AppContext): Promise<SessionCaller> {
  const { memberId, sessionToken, expiresAt } = await requireSession(c);
  return { memberId, credential: "session" as const, sessionToken, expiresAt };
}

/** The action context of a request (also used by the web app's pages: lib/http/page_auth.ts). */
export function actionContext(c: AppContext): ActionContext {
  const { kv, clock, access, config } = c.var.deps;
  return {
    kv,
    clock,
    access,
    passwordIterations: config.passwordIterations,
    version: config.version,
    isOperator: () => isOperator(c),
    defaultTier: config.defaultTier,
    coachDebounceMs: config.coachDebounceMs,
    passwordGuesses: passwordGuessesOf(c),
  };
}
