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
} from "../../actions/action_table.ts";
import { AppError } from "../../foundation/errors.ts";
import { BUSY_RETRY_AFTER_SECONDS } from "../../foundation/kv_commit.ts";
import type { ActionEndpointSpec } from "../../actions/endpoints.ts";
import { authenticate, isOperator } from "./auth.ts";
import { readJsonBody } from "./body.ts";
import type { AppContext, RouteHandler } from "./define.ts";
import { applyDeprecation } from "./deprecation.ts";
import { enforceRateLimit, passwordGuessesOf } from "./rate_limit.ts";
import { mailerFor } from "../../notify/mail.ts";

/** An endpoint (lib/actions/endpoints.ts) plus its HTTP effects. */
export interface ActionEndpointOptions extends ActionEndpointSpec {
  /** HTTP effects of a successful action, e.g. the session cookie of `/api/auth`. */
  respond?(c: AppContext, action: string, result: unknown): void;
}

/** The `POST` handler of an action endpoint. */
export function actionEndpoint(options: ActionEndpointOptions): RouteHandler {
  return async (c) => {
    const caller: Caller | null = options.requires === "session" ? await sessionCaller(c) : null;
    if (options.limitBy === "ip") await enforceRateLimit(c, options.policy, c.var.clientIp);
    else if (caller) await enforceRateLimit(c, options.policy, caller.memberId);
    const { action: name, ...fields } = options.request.parse(
      await readJsonBody(c, options.maxBodyBytes),
    );
    applyDeprecation(c, "action", `${options.path}#${name}`);
    const spec: ActionSpec | undefined = Object.hasOwn(options.actions, name)
      ? options.actions[name]
      : undefined;
    const finish = () => runAction(c, options, name, spec, fields, caller);
    return spec?.late ? await answerInTime(c, spec, finish) : await finish();
  };
}

/** The rest of a request once its action is known: credential, payload, run, JSON answer. */
async function runAction(
  c: AppContext,
  options: ActionEndpointOptions,
  name: string,
  spec: ActionSpec | undefined,
  fields: Record<string, unknown>,
  known: Caller | null,
): Promise<Response> {
  // An unknown action is refused only once the caller is known, as for any member action.
  const caller = known ?? await establishCaller(c, options, spec?.credential ?? "member");
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
  const result = await spec.run(actionContext(c, spec), input, caller as never);
  options.respond?.(c, name, result);
  return answer(c, spec, result);
}

/** The JSON answer of an action's result, with its status. */
function answer(c: AppContext, spec: ActionSpec, result: unknown): Response {
  const status = spec.status?.(result as never) ?? 200;
  // RFC 9110 §10.2.3: a 503 (an unhealthy check) says when to look again.
  if (status === 503) c.header("Retry-After", String(BUSY_RETRY_AFTER_SECONDS));
  return c.json(result as Record<string, unknown>, status as 200);
}

/**
 * Runs `finish` but answers `spec.late` if it has not answered in time (the health check's own
 * deadline: a probe hears "unhealthy" even while the rate limiter waits on a KV that does not
 * answer). The abandoned run goes on and is dropped; its KV calls have their own deadline.
 */
async function answerInTime(
  c: AppContext,
  spec: ActionSpec,
  finish: () => Promise<Response>,
): Promise<Response> {
  const late = spec.late!;
  const ctx = actionContext(c);
  const work = finish();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"late">((r) => timer = setTimeout(() => r("late"), late.ms(ctx)));
  try {
    const first = await Promise.race([work, timeout]);
    if (first !== "late") return first;
    work.catch(() => {}); // answered already: a later failure has no one to go to
    return answer(c, spec, late.answer(ctx));
  } finally {
    clearTimeout(timer);
  }
}

/** Establishes the caller an action's credential needs and spends its quota. */
async function establishCaller(
  c: AppContext,
  options: ActionEndpointOptions,
  credential: Credential,
): Promise<Caller | null> {
  const caller = credential === "none"
    ? null
    : credential === "session"
    ? await sessionCaller(c)
    : await memberCaller(c);
  if (options.limitBy === "caller") {
    await enforceRateLimit(c, options.policy, caller ? caller.memberId : `ip:${c.var.clientIp}`);
  }
  return caller;
}

const NEEDS_SESSION =
  "This endpoint needs a signed-in session: Authorization: Bearer <sessionToken>.";

/** A signed-in session (bearer or cookie): only a session may mint tokens or sign out (DESIGN §7). */
async function sessionCaller(c: AppContext): Promise<SessionCaller> {
  const p = await authenticate(c, { accept: ["session"], scopes: [], missing: NEEDS_SESSION });
  const { token, expiresAt } = p.session!;
  return { memberId: p.memberId, credential: "session", sessionToken: token, expiresAt };
}

/** The caller of a member action: a session (may write) or an API token with `read` (may read). */
async function memberCaller(c: AppContext): Promise<Caller> {
  const p = await authenticate(c, {
    accept: ["apiToken", "session"],
    scopes: ["read"],
    missing: NEEDS_SESSION,
  });
  return { memberId: p.memberId, credential: p.kind === "session" ? "session" : "api_token" };
}

/**
 * The action context of a request for `spec` (also used by the web app's pages:
 * lib/http/web/page_actions.ts). The `Idempotency-Key` is read (a malformed one is refused) but reaches
 * only an action that declares itself `idempotent`.
 */
export function actionContext(c: AppContext, spec?: ActionSpec): ActionContext {
  const { kv, clock, access, config } = c.var.deps;
  const idempotencyKey = idempotencyKeyOf(c); // read for every action: a malformed key is a 400
  return {
    kv,
    clock,
    access,
    passwordIterations: config.passwordIterations,
    version: config.version,
    isOperator: () => isOperator(c),
    defaultTier: config.defaultTier,
    coachDebounceMs: config.coachDebounceMs,
    pushContact: config.pushContact,
    pushAllowLoopbackHttp: config.pushAllowLoopbackHttp,
    mailer: mailerFor(config.smtp),
    baseUrl: config.baseUrl,
    limit: async (policy, subject) => {
      await enforceRateLimit(c, policy, subject);
    },
    passwordGuesses: passwordGuessesOf(c),
    idempotencyKey: spec?.idempotent ? idempotencyKey : undefined,
  };
}

/**
 * The request's `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header §2: an RFC 8941
 * String; a bare value, as many clients send, is taken too): 1–128 visible ASCII characters, so
 * a key is a short name, not a place to store data. Anything else is refused with 400, not
 * ignored: a client that sent a key relies on it.
 */
export function idempotencyKeyOf(c: AppContext): string | undefined {
  const raw = c.req.header("idempotency-key");
  if (raw === undefined) return undefined;
  const text = raw.trim();
  const key = /^"[^"\\]*"$/.test(text) ? text.slice(1, -1) : text;
  if (!/^[\x21-\x7e]{1,128}$/.test(key) || key.includes('"')) {
    throw new AppError(
      "invalid_request",
      "Idempotency-Key must be 1 to 128 visible ASCII characters, for example a UUID.",
    );
  }
  return key;
}
