/**
 * Member accounts and signed-in sessions (DESIGN §7, spec "Account"). Registration is open; a
 * username is claimed case-insensitively by a create-only KV key, so of two concurrent
 * registrations of one name exactly one commits.
 */

import { z } from "zod";
import type { Clock } from "../foundation/clock.ts";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { commitKv, readKv } from "../foundation/kv_commit.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import {
  COMMON_PASSWORD_MESSAGE,
  isCommonPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from "./common_passwords.ts";
import { type PasswordGuesses, usernameSubject } from "./password_guesses.ts";
import { hashSecret, isTokenOf, newSecret } from "../foundation/secrets.ts";

/** Sessions last 30 days from sign-in (no sliding renewal: sign in again). */
export const SESSION_LIFETIME_MS = 30 * 24 * 3600 * 1000;

/** Unit system preferred for display. */
export type Units = "metric" | "imperial";

/** The themes a member can choose, the default first: the device's scheme, or a fixed one. */
export const THEMES = ["system", "light", "dark"] as const;

/** The colour scheme of the web app. */
export type Theme = typeof THEMES[number];

/**
 * The locales dates are written in (components/dates.ts), the default first. The pages are in
 * English, so a locale here only decides the order and clock: "26 November 2026, 21:00" or
 * "November 26, 2026, 9:00 PM".
 */
export const DATE_LOCALES = ["en-GB", "en-US"] as const;

/** A locale dates are written in. */
export type DateLocale = typeof DATE_LOCALES[number];

/** A stored member account. */
export interface Member {
  id: string;
  username: string;
  passwordHash: string;
  createdAt: string;
  displayName: string;
  timezone: string;
  units: Units;
  dayStartOffsetHours: number;
  /** The web app's colour scheme (issue #25). Absent on older accounts: read as `system`. */
  theme?: Theme;
  /**
   * First day of the week, JS convention: 0 = Sunday … 6 = Saturday (issue #25). Absent on older
   * accounts: read through `weekStartsOn`, which answers Monday (ISO 8601 §2.2.8).
   */
  weekStartsOn?: number;
  /** The locale the web app writes dates in (issue #25). Absent on older accounts: `en-GB`. */
  locale?: DateLocale;
  /**
   * The coach's depth (DESIGN §15). Absent on accounts created before tiers: read as `free`.
   * Only lib/coach/ reads it; no tool or action answers differently by it.
   */
  membership?: "free" | "paid";
  /** Last day (YYYY-MM-DD, inclusive) of a paid membership; null when free. */
  paidUntil?: string | null;
  /** The verified e-mail address (issue #24: password reset, e-mail reminders); absent: none. */
  email?: string | null;
  /** An address the member entered and has not verified yet; the verified one stays till then. */
  emailPending?: string | null;
}

/** Monday: the ISO 8601 week's first day, the default before a member chooses another. */
export const DEFAULT_WEEK_START = 1;

/**
 * The member's first day of the week, 0 = Sunday … 6 = Saturday (default Monday). History's view
 * models take this number as their `weekStartsOn` option; they never read the account themselves.
 */
export function weekStartsOn(account: { weekStartsOn?: number }): number {
  const d = account.weekStartsOn;
  return Number.isInteger(d) && d! >= 0 && d! <= 6 ? d! : DEFAULT_WEEK_START;
}

/** The member's theme (default `system`: the device's light or dark scheme). */
export function themeOf(account: { theme?: Theme }): Theme {
  return account.theme && THEMES.includes(account.theme) ? account.theme : "system";
}

/** The locale the member's dates are written in (default `en-GB`). */
export function localeOf(account: { locale?: string }): DateLocale {
  const l = account.locale;
  return (DATE_LOCALES as readonly string[]).includes(l ?? "") ? l as DateLocale : DATE_LOCALES[0];
}

/** A stored session (the key is the token's hash; the token itself is never stored). */
export interface Session {
  memberId: string;
  createdAt: number;
  expiresAt: number;
}

/** Username: 3–32 characters, letters, digits, `_`, `.`, `-`, starting with a letter or digit. */
export const Username = z.string().regex(
  /^[A-Za-z0-9][A-Za-z0-9_.-]{2,31}$/,
  "Username: 3–32 characters of letters, digits, _ . - starting with a letter or digit.",
);

/**
 * Password: 8–256 characters (DESIGN §7; NIST SP 800-63B §5.1.1.2 allows long passphrases), and
 * not on the common-password blocklist (§5.1.1.2 "SHALL compare", lib/accounts/common_passwords.ts).
 * Only new passwords are checked (sign-up, password change): signing in takes any string.
 */
export const Password = z.string()
  .min(PASSWORD_MIN_LENGTH, `Password: at least ${PASSWORD_MIN_LENGTH} characters.`)
  .max(PASSWORD_MAX_LENGTH, `Password: at most ${PASSWORD_MAX_LENGTH} characters.`)
  .refine((p) => !isCommonPassword(p), COMMON_PASSWORD_MESSAGE)
  .meta({
    description: "8–256 characters, not one of the most common passwords (/docs/security).",
  });

/** What register and login return. */
export interface SignedIn {
  memberId: string;
  username: string;
  sessionToken: string;
  expiresAt: string;
}

/** What the `session` action reports about the caller. */
export interface SessionInfo {
  memberId: string;
  username: string;
  displayName: string;
  expiresAt: string;
}

/** Options every account function needs. */
export interface AccountContext {
  kv: Deno.Kv;
  clock: Clock;
  /** PBKDF2 iterations for new hashes (config). */
  passwordIterations: number;
  /** Tier stamped on new accounts (config `defaultTier`; default free). */
  defaultTier?: "free" | "paid";
}

/** What signing in needs besides: where it counts guesses per username (password_guesses.ts). */
export interface SignInContext extends AccountContext {
  guesses: PasswordGuesses;
}

/**
 * Starts a session for the member as read in `memberEntry`. The commit is checked against that
 * entry, so a sign-in racing with a password change or an account deletion fails instead of
 * leaving a session the change should have ended.
 */
async function startSession(
  ctx: AccountContext,
  memberEntry: { key: Deno.KvKey; value: Member; versionstamp: string },
): Promise<SignedIn> {
  const member = memberEntry.value;
  const token = newSecret("session");
  const hash = hashSecret(token);
  const now = ctx.clock();
  const session: Session = {
    memberId: member.id,
    createdAt: now,
    expiresAt: now + SESSION_LIFETIME_MS,
  };
  // expireIn lets KV drop it; expiresAt is still checked on read, since expired keys "may still be
  // visible for some additional time" (Deno KV docs).
  const res = await commitKv(() =>
    ctx.kv.atomic()
      .check(memberEntry)
      .set(keys.session(hash), session, { expireIn: SESSION_LIFETIME_MS })
      .set(keys.sessionOfMember(member.id, hash), session.expiresAt, {
        expireIn: SESSION_LIFETIME_MS,
      })
  );
  if (!res.ok) {
    throw new AppError("invalid_credentials", "Username or password is incorrect.");
  }
  return {
    memberId: member.id,
    username: member.username,
    sessionToken: token,
    expiresAt: new Date(session.expiresAt).toISOString(),
  };
}

/** A new account's name, password and time zone. */
export interface Registration {
  /** Validated by `Username`. */
  username: string;
  /** Validated by `Password`. */
  password: string;
  /** IANA zone; default UTC. */
  timezone?: string;
}

/**
 * Creates an account and signs it in. Throws `username_taken` if the name (compared
 * case-insensitively) is already registered.
 *
 * @param ctx KV, clock and work factor
 */
export async function registerMember(
  ctx: AccountContext,
  { username, password, timezone = "UTC" }: Registration,
): Promise<SignedIn> {
  const lower = username.toLowerCase();
  const usernameKey = keys.username(lower);
  const taken = new AppError("username_taken", `The username "${username}" is already registered.`);
  if ((await ctx.kv.get(usernameKey)).versionstamp !== null) throw taken;
  const member: Member = {
    id: crypto.randomUUID(),
    username,
    passwordHash: await hashPassword(password, ctx.passwordIterations),
    createdAt: new Date(ctx.clock()).toISOString(),
    displayName: username,
    timezone,
    units: "metric",
    dayStartOffsetHours: 0,
    membership: ctx.defaultTier ?? "free",
    paidUntil: null,
  };
  // Create-only on both keys: the username claim is the uniqueness constraint.
  const res = await commitKv(() =>
    ctx.kv.atomic()
      .check({ key: usernameKey, versionstamp: null })
      .check({ key: keys.member(member.id), versionstamp: null })
      .set(usernameKey, member.id)
      .set(keys.member(member.id), member)
  );
  if (!res.ok) throw taken;
  return await startSession(ctx, {
    key: keys.member(member.id),
    value: member,
    versionstamp: res.versionstamp,
  });
}

/** A hash of a password nobody has, to spend the same time on unknown usernames. */
const decoyHashes = new Map<number, Promise<string>>();

function decoyHash(iterations: number): Promise<string> {
  let hash = decoyHashes.get(iterations);
  if (!hash) {
    hash = hashPassword(newSecret("decoyPassword"), iterations);
    decoyHashes.set(iterations, hash);
  }
  return hash;
}

/**
 * Signs a member in. Unknown username and wrong password give the same `invalid_credentials`
 * error after the same amount of hashing, so a caller cannot probe which usernames exist
 * (OWASP Authentication Cheat Sheet, "Authentication and Error Messages"). Each wrong password
 * spends one of the username's guesses, known or not (lib/accounts/password_guesses.ts): once they are spent, every
 * attempt is `rate_limited`, the right password too, until the window has passed.
 */
export async function loginMember(
  ctx: SignInContext,
  username: string,
  password: string,
): Promise<SignedIn> {
  // Spent before the lookup, for a name that exists or not alike; given back by a right password.
  const giveBack = await ctx.guesses.spend(usernameSubject(username));
  const idEntry = await readKv(() => ctx.kv.get<string>(keys.username(username.toLowerCase())));
  const entry = idEntry.value
    ? await readKv(() => ctx.kv.get<Member>(keys.member(idEntry.value!)))
    : null;
  const member = entry?.value ?? null;
  const ok = await verifyPassword(
    password,
    member?.passwordHash ?? await decoyHash(ctx.passwordIterations),
  );
  if (!entry || !member || !ok) {
    throw new AppError("invalid_credentials", "Username or password is incorrect.");
  }
  await giveBack();
  return await startSession(ctx, entry as Deno.KvEntry<Member>);
}

/** Ends a session (and its index entry) in one commit. Idempotent: an unknown token is not an error. */
export async function logoutSession(kv: Deno.Kv, sessionToken: string): Promise<void> {
  const key = keys.session(hashSecret(sessionToken));
  const entry = await readKv(() => kv.get<Session>(key));
  if (!entry.value) return;
  const memberId = entry.value.memberId;
  await commitKv(() =>
    kv.atomic().delete(key).delete(keys.sessionOfMember(memberId, hashSecret(sessionToken)))
  );
}

/**
 * Resolves a session token to its member id, or `null` when it is unknown, expired or signed out.
 */
export async function findSession(
  kv: Deno.Kv,
  clock: Clock,
  sessionToken: string,
): Promise<{ memberId: string; expiresAt: number } | null> {
  if (!isTokenOf("session", sessionToken)) return null;
  // A strong read of the session's own key on every request: a sign-out, password change or
  // account deletion committed by any instance is seen at once (docs/architecture.md).
  const entry = await readKv(() => kv.get<Session>(keys.session(hashSecret(sessionToken))));
  if (!entry.value || entry.value.expiresAt <= clock()) return null;
  return { memberId: entry.value.memberId, expiresAt: entry.value.expiresAt };
}

/** Reads a member, or throws `not_found`. */
export async function getMember(kv: Deno.Kv, memberId: string): Promise<Member> {
  const entry = await readKv(() => kv.get<Member>(keys.member(memberId)));
  if (!entry.value) throw new AppError("not_found", "The account no longer exists.");
  return entry.value;
}

/** What `session` answers: who the session belongs to and until when. */
export async function describeSession(
  kv: Deno.Kv,
  memberId: string,
  expiresAt: number,
): Promise<SessionInfo> {
  const member = await getMember(kv, memberId);
  return {
    memberId,
    username: member.username,
    displayName: member.displayName,
    expiresAt: new Date(expiresAt).toISOString(),
  };
}
