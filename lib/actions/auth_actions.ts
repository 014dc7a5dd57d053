/**
 * The actions of `POST /api/auth` (DESIGN §7, spec "POST /api/auth"), and the account-wide
 * changePassword and deleteAccount (issue #9).
 */

import {
  describeSession,
  loginMember,
  logoutSession,
  registerMember,
} from "../accounts/accounts.ts";
import { changePassword, deleteAccount } from "../accounts/account_changes.ts";
import {
  AccountDeletedResponse,
  AuthRequest,
  PasswordChangedResponse,
  SessionInfoResponse,
  SignedInResponse,
  SignedOutResponse,
} from "../accounts/auth_messages.ts";
import {
  EmailSetResponse,
  EmailVerifiedResponse,
  PasswordResetResponse,
  ResetRequestedResponse,
} from "../accounts/auth_messages.ts";
import { action, type ActionContext, payloadOf } from "./action_table.ts";
import { requestPasswordReset, resetPassword, setEmail, verifyEmail } from "./email_actions.ts";

function accountsOf(ctx: ActionContext) {
  const { kv, clock, passwordIterations, defaultTier, passwordGuesses } = ctx;
  return { kv, clock, passwordIterations, defaultTier, guesses: passwordGuesses };
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
  changePassword: action({
    credential: "session",
    errors: ["invalid_credentials", "not_found"],
    input: payloadOf(AuthRequest, "changePassword"),
    output: PasswordChangedResponse,
    run: async (ctx, body, session) => {
      await changePassword(ctx.kv, {
        clock: ctx.clock,
        memberId: session.memberId,
        currentPassword: body.currentPassword,
        newPassword: body.newPassword,
        keepSessionToken: session.sessionToken,
        iterations: ctx.passwordIterations,
        endTokensAndApps: body.endTokensAndApps,
        guesses: ctx.passwordGuesses,
      });
      return {
        passwordChanged: true,
        otherSessionsSignedOut: true,
        tokensAndAppsEnded: body.endTokensAndApps,
      };
    },
  }),
  deleteAccount: action({
    credential: "session",
    errors: ["invalid_request", "not_found"],
    input: payloadOf(AuthRequest, "deleteAccount"),
    output: AccountDeletedResponse,
    run: async (ctx, body, session) => {
      await deleteAccount(ctx.kv, {
        memberId: session.memberId,
        confirmUsername: body.confirmUsername,
      });
      return { deleted: true };
    },
  }),
  // E-mail (issue #24): lib/actions/email_actions.ts
  setEmail: action({
    credential: "session",
    errors: ["email_not_configured", "not_found"],
    input: payloadOf(AuthRequest, "setEmail"),
    output: EmailSetResponse,
    run: (ctx, body, session) => setEmail(ctx, session.memberId, body.email),
  }),
  verifyEmail: action({
    credential: "none",
    errors: ["invalid_link"],
    input: payloadOf(AuthRequest, "verifyEmail"),
    output: EmailVerifiedResponse,
    run: (ctx, body) => verifyEmail(ctx, body.token),
  }),
  requestPasswordReset: action({
    credential: "none",
    errors: ["email_not_configured"],
    input: payloadOf(AuthRequest, "requestPasswordReset"),
    output: ResetRequestedResponse,
    run: (ctx, body) => requestPasswordReset(ctx, body.email),
  }),
  resetPassword: action({
    credential: "none",
    errors: ["invalid_link"],
    input: payloadOf(AuthRequest, "resetPassword"),
    output: PasswordResetResponse,
    run: (ctx, body) => resetPassword(ctx, body),
  }),
} as const;
