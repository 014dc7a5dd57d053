/**
 * The action tables of `POST /api/auth`, `/api/tokens` and `/api/proxy`: each action names the
 * credential it needs, whether it writes, its zod payload and output, and the lib/ function it
 * runs. `lib/http/kernel/action_endpoint.ts` serves any table the same way (authenticate, rate-limit,
 * parse, run), so the three endpoints cannot drift apart; the OpenAPI description reads the same
 * tables. HTTP-free: an action returns data, the endpoint decides headers and cookies.
 */

import type { PasswordGuesses } from "../accounts/password_guesses.ts";
import type { z } from "zod";
import type { Clock } from "../foundation/clock.ts";
import type { ErrorCode } from "../foundation/errors.ts";
import type { MemberAccess } from "../record/member_access.ts";
import type { Mailer } from "../notify/mail.ts";
import type { PolicyName } from "../policy/rate_limit.ts";

/**
 * Who may call an action: anyone (`none`: spec "Rules", e.g. `healthCheck`, `register`), only a
 * signed-in session (`session`: DESIGN §7, tokens are minted by sessions), or a member by session
 * or read-only API token (`member`: `/api/proxy`).
 */
export type Credential = "none" | "session" | "member";

/** The authenticated caller of a `member` or `session` action. */
export interface Caller {
  memberId: string;
  /** Sessions may write; API tokens (scope `read`) may only read (spec "API token"). */
  credential: "session" | "api_token";
}

/** The caller of a `session` action: the session itself (sign-out ends it). */
export interface SessionCaller extends Caller {
  credential: "session";
  sessionToken: string;
  /** Session expiry (ms since the epoch). */
  expiresAt: number;
}

/** What the caller of each credential kind is. */
export type CallerOf<C extends Credential> = C extends "none" ? null
  : C extends "session" ? SessionCaller
  : Caller;

/** What every action may reach from the app. */
export interface ActionContext {
  kv: Deno.Kv;
  clock: Clock;
  access: MemberAccess;
  /** PBKDF2 iterations for new password hashes (config). */
  passwordIterations: number;
  /** Service version (the health check reports it). */
  version: string;
  /**
   * True when the request carries the operator's `METRICS_TOKEN` (checked on demand, so other
   * actions pay nothing): the health check then names the failed dependency. Issue #14.
   */
  isOperator(): boolean;
  /** Tier stamped on new accounts (config `defaultTier`, DESIGN §15). */
  defaultTier?: "free" | "paid";
  /** Where password checks count their guesses per username (issue #19). */
  passwordGuesses: PasswordGuesses;
  /** Quiet time before the coach analyses a record after a write (config `coachDebounceMs`). */
  coachDebounceMs?: number;
  /**
   * The request's `Idempotency-Key`, if it sent one and the action is `idempotent`: the change is
   * applied under one key once (issue #24, an offline queue's replays).
   */
  idempotencyKey?: string;
  /** The VAPID contact (config `pushContact`, RFC 8292 §2.1). */
  pushContact?: string;
  /** Accept `http:` loopback push endpoints (config, tests only). */
  pushAllowLoopbackHttp?: boolean;
  /** Where e-mail goes out (config `SMTP_URL`); null or absent: e-mail is not configured. */
  mailer?: Mailer | null;
  /** The public base URL, for links in e-mail (config `BASE_URL`). */
  baseUrl?: string;
  /**
   * Counts one request of `subject` under `policy` and throws `rate_limited` once it is spent (the
   * request's RateLimit headers then name that policy): an action's own quota besides its endpoint's.
   */
  limit?: (policy: PolicyName, subject: string) => Promise<void>;
}

/** One action of an endpoint. */
export interface ActionSpec<S extends z.ZodType = z.ZodType, C extends Credential = Credential> {
  credential: C;
  /** True when the action changes the record: an API token may not call it (spec "API token"). */
  writes?: boolean;
  /**
   * True when the action honours `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header):
   * only such an action receives the key, and the OpenAPI document names exactly these.
   */
  idempotent?: boolean;
  /** The fields besides `action`, parsed before `run`. */
  input: S;
  /** What `run` answers; the OpenAPI description and the contract test use it. */
  output: z.ZodType;
  /** The codes the action itself can throw, beyond reading the request and the credential. */
  errors?: readonly ErrorCode[];
  /** Success status when not 200 (`201` for what creates; `503` for an unhealthy check). */
  status?: (result: never) => number;
  run(ctx: ActionContext, input: z.output<S>, caller: CallerOf<C>): Promise<unknown>;
  /**
   * An action with a deadline of its own (the health check, issue #21): if the request — rate
   * limit included — has no answer within `ms`, the endpoint answers `answer` with `status`.
   */
  late?: { ms(ctx: ActionContext): number; answer(ctx: ActionContext): unknown };
}

/** Declares an action with its input type inferred from the schema. */
export function action<S extends z.ZodType, C extends Credential>(
  spec: ActionSpec<S, C>,
): ActionSpec<S, C> {
  return spec;
}

/** An endpoint's actions, by name. */
export type ActionTable = Readonly<Record<string, ActionSpec<z.ZodType, Credential>>>;

/** The fields of one branch of a documented `{action, …}` union, without `action`. */
export function payloadOf<
  U extends z.ZodType<{ action: string }> & { options: readonly z.ZodObject[] },
  N extends z.output<U>["action"],
>(union: U, name: N): z.ZodType<Omit<Extract<z.output<U>, { action: N }>, "action">> {
  const branch = union.options.find((o) => (o.shape.action as z.ZodLiteral).value === name);
  if (!branch) throw new Error(`No "${name}" branch in the request union.`);
  return branch.omit({ action: true }) as never;
}
