/**
 * Request and response bodies of `POST /api/auth` (DESIGN §7). The route parses with
 * `AuthRequest`; the OpenAPI description (lib/documents/openapi.ts) is generated from the same schemas, and
 * the contract test checks real responses against the response schemas.
 */

import { z } from "zod";
import { TimeZone } from "../foundation/dates.ts";
import { Password, Username } from "./accounts.ts";
import { prefixOf } from "../foundation/secrets.ts";

/** The body of `POST /api/auth`, one branch per action. */
export const AuthRequest = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("register"),
    username: Username,
    password: Password,
    timezone: TimeZone.optional(),
  }).strict(),
  z.object({
    action: z.literal("login"),
    username: z.string().max(64),
    password: z.string().max(256),
  }).strict(),
  z.object({ action: z.literal("logout") }).strict(),
  z.object({ action: z.literal("session") }).strict(),
  z.object({
    action: z.literal("changePassword"),
    currentPassword: z.string().max(256),
    newPassword: Password,
    endTokensAndApps: z.boolean().default(false).meta({
      description: "Also end every API token and connected app (OAuth grant) of the member. " +
        "Default false; the web form's checkbox is checked by default.",
    }),
  }).strict(),
  z.object({
    action: z.literal("deleteAccount"),
    confirmUsername: z.string().max(64).meta({
      description: "The account's username, typed again to confirm.",
    }),
  }).strict(),
], {
  error:
    'Unknown or missing "action": one of register, login, logout, session, changePassword, deleteAccount.',
});

/** What `register` (201) and `login` (200) answer: the `SignedIn` of lib/accounts/accounts.ts. */
export const SignedInResponse = z.object({
  memberId: z.string(),
  username: z.string(),
  sessionToken: z.string().startsWith(prefixOf("session")).meta({
    description: "Bearer credential of the session (also set as an HttpOnly cookie).",
  }),
  expiresAt: z.iso.datetime(),
}).strict();

/** What `logout` answers. */
export const SignedOutResponse = z.object({ signedOut: z.literal(true) }).strict();

/** What `session` answers: the `SessionInfo` of lib/accounts/accounts.ts. */
export const SessionInfoResponse = z.object({
  memberId: z.string(),
  username: z.string(),
  displayName: z.string(),
  expiresAt: z.iso.datetime(),
}).strict();

/**
 * What `changePassword` answers: every other session of the member is signed out, and every API
 * token and connected app too when `endTokensAndApps` was sent true.
 */
export const PasswordChangedResponse = z.object({
  passwordChanged: z.literal(true),
  otherSessionsSignedOut: z.literal(true),
  tokensAndAppsEnded: z.boolean(),
}).strict();

/** What `deleteAccount` answers once everything of the member is gone. */
export const AccountDeletedResponse = z.object({ deleted: z.literal(true) }).strict();

/** The response schema of each action, for the OpenAPI description. */
export const AUTH_RESPONSES = {
  register: SignedInResponse,
  login: SignedInResponse,
  logout: SignedOutResponse,
  session: SessionInfoResponse,
  changePassword: PasswordChangedResponse,
  deleteAccount: AccountDeletedResponse,
} as const;
