/**
 * Request and response bodies of `POST /api/auth` (DESIGN §7). The route parses with
 * `AuthRequest`; the OpenAPI description (lib/documents/openapi.ts) is generated from the same schemas, and
 * the contract test checks real responses against the response schemas.
 */

import { z } from "zod";
import { TimeZone } from "../foundation/dates.ts";
import { Password, Username } from "./accounts.ts";
import { prefixOf } from "../foundation/secrets.ts";

/**
 * An e-mail address (issue #24): one `@`, a dot in the domain, at most 254 characters (RFC 5321
 * §4.5.3.1.3). Deliberately loose — the link we mail is the real check — but it refuses anything
 * that could add a recipient or a header to a message (CR, LF, `,`, `;`, `<`, `>`, quotes). The
 * domain is compared in lower case (RFC 5321 §2.4); the stored address is the one typed, trimmed.
 */
export const EmailAddress = z.string().trim().max(
  254,
  "An e-mail address is at most 254 characters.",
)
  .regex(
    /^[^\s@<>,;"()\\]{1,64}@[^\s@<>,;"()\\]+\.[^\s@<>,;"()\\]+$/,
    "Enter an e-mail address, such as name@example.org.",
  ).meta({ description: "An e-mail address (name@example.org)." });

/** A secret from an e-mailed link (the `token` of its query). */
const LinkSecret = z.string().max(128).meta({ description: "The `token` of the e-mailed link." });

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
  z.object({ action: z.literal("setEmail"), email: EmailAddress }).strict(),
  z.object({ action: z.literal("verifyEmail"), token: LinkSecret }).strict(),
  z.object({ action: z.literal("requestPasswordReset"), email: EmailAddress }).strict(),
  z.object({
    action: z.literal("resetPassword"),
    token: LinkSecret,
    newPassword: Password,
    endTokensAndApps: z.boolean().default(false).meta({
      description: "Also end every API token and connected app (OAuth grant) of the member.",
    }),
  }).strict(),
], {
  error: 'Unknown or missing "action": one of register, login, logout, session, changePassword, ' +
    "deleteAccount, setEmail, verifyEmail, requestPasswordReset, resetPassword.",
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

/** What `setEmail` answers: the address waits for its link; the verified one stays till then. */
export const EmailSetResponse = z.object({
  email: z.string().nullable().meta({ description: "The verified address, unchanged for now." }),
  pending: z.string().meta({ description: "The address a verification link was sent to." }),
}).strict();

/** What `verifyEmail` answers. */
export const EmailVerifiedResponse = z.object({
  verified: z.literal(true),
  email: z.string(),
}).strict();

/** What `requestPasswordReset` answers: the same whether or not an account has the address. */
export const ResetRequestedResponse = z.object({
  accepted: z.literal(true),
  message: z.string(),
}).strict();

/** What `resetPassword` answers: every session is ended (and tokens and apps if asked). */
export const PasswordResetResponse = z.object({
  passwordReset: z.literal(true),
  sessionsSignedOut: z.literal(true),
  tokensAndAppsEnded: z.boolean(),
}).strict();

/** The response schema of each action, for the OpenAPI description. */
export const AUTH_RESPONSES = {
  register: SignedInResponse,
  login: SignedInResponse,
  logout: SignedOutResponse,
  session: SessionInfoResponse,
  changePassword: PasswordChangedResponse,
  deleteAccount: AccountDeletedResponse,
  setEmail: EmailSetResponse,
  verifyEmail: EmailVerifiedResponse,
  requestPasswordReset: ResetRequestedResponse,
  resetPassword: PasswordResetResponse,
} as const;
