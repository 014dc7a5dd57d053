/** The actions of `POST /api/auth` (DESIGN §7, spec "POST /api/auth"). */

import {
  describeSession,
  loginMember,
  logoutSession,
  registerMember,
} from "../accounts/accounts.ts";
import {
  AuthRequest,
  SessionInfoResponse,
  SignedInResponse,
  SignedOutResponse,
} from "../accounts/auth_messages.ts";
import { action, type ActionContext, payloadOf } from "./action_table.ts";

function accountsOf({ kv, clock, passwordIterations }: ActionContext) {
  return { kv, clock, passwordIterations };
}

/** Every action of `/api/auth`, by name. */
export const AUTH_ACTIONS = {
  register: action({
    errors: ["username_taken"],
    credential: "none",
    input: payloadOf(AuthRequest, "register"),
    output: SignedInResponse,
    status: () => 201,
    run: (ctx, body) => registerMember(accountsOf(ctx), body),
  }),
  login: action({
    errors: ["invalid_credentials"],
    credential: "none",
    input: payloadOf(AuthRequest, "login"),
    output: SignedInResponse,
    run: (ctx, body) => loginMember(accountsOf(ctx), body.username, body.password),
  }),
  logout: action({
    credential: "session",
    input: payloadOf(AuthRequest, "logout"),
    output: SignedOutResponse,
    run: async (ctx, _input, session) => {
      await logoutSession(ctx.kv, session.sessionToken);
      return { signedOut: true };
    },
  }),
  session: action({
    credential: "session",
    input: payloadOf(AuthRequest, "session"),
    output: SessionInfoResponse,
    run: (ctx, _input, session) => describeSession(ctx.kv, session.memberId, session.expiresAt),
  }),
} as const;
