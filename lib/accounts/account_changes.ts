/**
 * Account-wide changes that end credentials everywhere at once (issue #9): a password change signs
 * out every other session, and on request every API token and connected app (issue #19); an
 * account deletion removes the member and everything of theirs. Every
 * credential check reads its own key strongly on each request (docs/architecture.md), so once
 * these return, the ended credentials are refused on the next call at every instance.
 */

import type { Clock } from "../foundation/clock.ts";
import { AppError } from "../foundation/errors.ts";
import { keys, rateLimitCounterId, rateLimitSweepAt } from "../foundation/kv_keys.ts";
import { KV_LIMITS } from "../foundation/kv_limits.ts";
import { commitKv, readKv, RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { RATE_LIMIT_POLICIES } from "../policy/rate_limit.ts";
import type { Member } from "./accounts.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import { type PasswordGuesses, usernameSubject } from "./password_guesses.ts";
import { hashSecret } from "../foundation/secrets.ts";

/** Deno KV allows 1000 mutations per atomic operation; deletions go in batches well below it. */
const BATCH = 400;

/** Options of `changePassword`. */
export interface ChangePasswordOptions {
  clock: Clock;
  memberId: string;
  currentPassword: string;
  /** Validated by `Password` (8–256 characters). */
  newPassword: string;
  /** The session making the change stays signed in; every other one is ended. */
  keepSessionToken: string | null;
  /** PBKDF2 iterations for the new hash (config). */
  iterations: number;
  /** Also end every API token and connected app (OAuth grant) of the member. */
  endTokensAndApps?: boolean;
  /** The current password is a guess like a sign-in's (lib/accounts/password_guesses.ts). */
  guesses: PasswordGuesses;
}

async function memberEntry(kv: Deno.Kv, memberId: string): Promise<Deno.KvEntry<Member>> {
  const entry = await readKv(() => kv.get<Member>(keys.member(memberId)));
  if (!entry.value) throw new AppError("not_found", "The account no longer exists.");
  return entry as Deno.KvEntry<Member>;
}

/** Deletes `keysToDelete` in as few commits as the mutation bound allows. Idempotent. */
async function deleteAll(kv: Deno.Kv, keysToDelete: Deno.KvKey[]): Promise<void> {
  for (let i = 0; i < keysToDelete.length; i += BATCH) {
    const part = keysToDelete.slice(i, i + BATCH);
    await commitKv(() => {
      const op = kv.atomic();
      for (const key of part) op.delete(key);
      return op;
    });
  }
}

/** The session keys (and their index keys) of a member, except the one of `keepHash`. */
async function sessionKeys(kv: Deno.Kv, memberId: string, keepHash: string | null) {
  const out: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: keys.sessionsOfMember(memberId) })) {
    const hash = e.key[2] as string;
    if (hash !== keepHash) out.push(keys.session(hash), e.key);
  }
  return out;
}

/**
 * Every API token and connected app of the member: the keys whose deletion ends them. A grant's
 * access and refresh tokens are refused once the grant is gone (every check reads it strongly), so
 * the OAuth token records themselves are left to expire.
 */
async function tokenAndAppKeys(kv: Deno.Kv, memberId: string): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [];
  for await (const e of kv.list<{ hash: string }>({ prefix: keys.apiTokensOfMember(memberId) })) {
    const tokenId = e.key[2] as string;
    out.push(keys.apiToken(e.value.hash), e.key, keys.apiTokenLastUsed(memberId, tokenId));
  }
  for await (const e of kv.list({ prefix: keys.oauthGrantsOf(memberId) })) out.push(e.key);
  return out;
}

/**
 * Changes the member's password: checks the current one (`invalid_credentials` otherwise), stores
 * the new hash and ends every session but `keepSessionToken` (OWASP Session Management Cheat Sheet:
 * renew sessions after a password change). API tokens and connected apps are separate credentials:
 * with `endTokensAndApps` they end too (the web form asks, checked by default: a password change
 * is often the answer to a leak, and a token minted by whoever had the password would outlive it),
 * otherwise they stay valid. The new hash
 * commits with the first batch of sign-outs, checked against the member as read, so a sign-in with
 * the old password racing with this fails (lib/accounts/accounts.ts `startSession`).
 */
export async function changePassword(kv: Deno.Kv, options: ChangePasswordOptions): Promise<void> {
  const { memberId, keepSessionToken } = options;
  const first = await memberEntry(kv, memberId);
  // A stolen session must not become a way around sign-in's limit on guesses (issue #19).
  const giveBack = await options.guesses.spend(usernameSubject(first.value.username));
  if (!(await verifyPassword(options.currentPassword, first.value.passwordHash))) {
    throw new AppError("invalid_credentials", "The current password is incorrect.");
  }
  await giveBack();
  const passwordHash = await hashPassword(options.newPassword, options.iterations);
  await replacePassword(kv, {
    memberId,
    passwordHash,
    keepHash: keepSessionToken ? hashSecret(keepSessionToken) : null,
    endTokensAndApps: options.endTokensAndApps === true,
  });
}

/** Options of `replacePassword`. */
export interface ReplacePasswordOptions {
  memberId: string;
  /** The new hash (`hashPassword`). */
  passwordHash: string;
  /** SHA-256 of the one session that stays signed in; null ends every session. */
  keepHash: string | null;
  /** Also end every API token and connected app of the member. */
  endTokensAndApps: boolean;
}

/**
 * Stores a new password hash and ends the member's sessions but `keepHash`, the hash in the same
 * commit as the first batch of sign-outs, checked against the member as read. `changePassword`
 * uses it after checking the current password; `deno task admin reset-password` directly. Tokens
 * and apps, when asked, end first: a crash in between leaves the old password with fewer
 * credentials (the member tries again), never a new password beside the credentials it should
 * have ended.
 */
export async function replacePassword(
  kv: Deno.Kv,
  { memberId, passwordHash, keepHash, endTokensAndApps }: ReplacePasswordOptions,
): Promise<void> {
  if (endTokensAndApps) await deleteAll(kv, await tokenAndAppKeys(kv, memberId));
  const rest = await withKvRetry(async () => {
    const entry = await memberEntry(kv, memberId);
    const ended = await sessionKeys(kv, memberId, keepHash);
    const now = ended.slice(0, BATCH);
    const op = kv.atomic().check(entry).set(entry.key, { ...entry.value, passwordHash });
    for (const key of now) op.delete(key);
    return (await op.commit()).ok ? ended.slice(BATCH) : RETRY;
  });
  await deleteAll(kv, rest);
}

/** Options of `deleteAccount`. */
export interface DeleteAccountOptions {
  memberId: string;
  /** Must equal the member's username (case-insensitively): the confirmation. */
  confirmUsername: string;
}

/** Every credential of the member: sessions, API tokens, OAuth grants and OAuth secrets. */
async function credentialKeys(kv: Deno.Kv, memberId: string): Promise<Deno.KvKey[]> {
  const out = await sessionKeys(kv, memberId, null);
  out.push(...await tokenAndAppKeys(kv, memberId), keys.apiTokenSetVersion(memberId));
  // Codes, tickets and OAuth tokens are keyed by their hash; the member's own index names them
  // (issue #21: reading every member's secrets cost pages in proportion to the instance). Deleting
  // the grants above already refuses the tokens; this removes the records themselves.
  const oauthIndex = { prefix: keys.oauthSecretsOfMember(memberId) };
  for await (const e of kv.list(oauthIndex, { batchSize: KV_LIMITS.listBatch })) {
    out.push([e.key[2], e.key[3]], e.key);
  }
  return out;
}

/**
 * The member's e-mail keys (issue #24): the claim of their verified address (if still theirs), and
 * their e-mail links with the index entries naming them.
 */
async function emailKeys(kv: Deno.Kv, member: Member): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [];
  if (member.email) {
    const claim = await readKv(() =>
      kv.get<string>(keys.emailAddress(member.email!.toLowerCase()))
    );
    if (claim.value === member.id) out.push(claim.key);
  }
  for await (const e of kv.list({ prefix: keys.emailLinksOfMember(member.id) })) {
    out.push(e.key, keys.emailLink(e.key[2] as string));
  }
  return out;
}

/** The member's record and rate-limit counters (and the guesses at their username's password). */
async function dataKeys(kv: Deno.Kv, memberId: string, username: string): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [
    keys.columns(memberId),
    keys.pauses(memberId),
    keys.recordVersion(memberId),
    // the coach's findings and schedule (issue #12): a run for a deleted member is a no-op
    keys.coachFindings(memberId),
    keys.coachDue(memberId),
  ];
  // its due-time keys (issue #21), found through their mirror by member
  for await (const e of kv.list({ prefix: keys.coachDuesOfMember(memberId) })) {
    out.push(e.key, keys.coachDueAt(e.key[2] as number, memberId));
  }
  // reminders and push subscriptions (issue #24), with their due-time keys
  out.push(keys.reminders(memberId));
  for await (const e of kv.list({ prefix: keys.reminderDuesOfMember(memberId) })) {
    out.push(e.key, keys.reminderDueAt(e.key[2] as number, memberId));
  }
  for await (const e of kv.list({ prefix: keys.pushSubscriptionsOf(memberId) })) out.push(e.key);
  const entries = { prefix: keys.entriesOf(memberId) };
  for await (const e of kv.list(entries, { batchSize: KV_LIMITS.listBatch })) out.push(e.key);
  // the record's packed snapshot and its list of changed days (issue #22; derived from entries)
  out.push(keys.recordChanges(memberId), keys.recordOtherWrites(memberId));
  for await (const e of kv.list({ prefix: keys.recordSnapshotsOf(memberId) })) out.push(e.key);
  // the keys of changes already applied (issue #24): they name the member and expire anyway
  const applied = { prefix: keys.idempotencyKeysOf(memberId) };
  for await (const e of kv.list(applied, { batchSize: KV_LIMITS.listBatch })) out.push(e.key);
  // the token creates remembered under a form's nonce (issue #25): they name the token
  for await (const e of kv.list({ prefix: keys.apiTokenCreatesOf(memberId) })) out.push(e.key);
  for (const policy of Object.values(RATE_LIMIT_POLICIES)) {
    const subject = policy.keyedBy.startsWith("member")
      ? memberId
      : policy.keyedBy === "username"
      ? usernameSubject(username)
      : null;
    if (subject === null) continue;
    for await (const e of kv.list({ prefix: keys.rateLimitOfSubject(policy.name, subject) })) {
      // with its sweep key, which names the member too (issue #21)
      const index = e.key[3] as number;
      const id = rateLimitCounterId(policy.name, subject, index);
      out.push(e.key, keys.rateLimitSweep(rateLimitSweepAt(index, policy.w), id));
    }
  }
  return out;
}

/**
 * Deletes the account and everything of the member: credentials first (so nothing can act for
 * them while the rest goes), then the record and counters, then the account and its username —
 * and credentials once more, for any created meanwhile. Each step is idempotent, so an interrupted
 * deletion is completed by signing in and deleting again. Throws `invalid_request` when
 * `confirmUsername` does not name the account.
 */
export async function deleteAccount(kv: Deno.Kv, options: DeleteAccountOptions): Promise<void> {
  const { memberId } = options;
  const entry = await memberEntry(kv, memberId);
  if (options.confirmUsername.toLowerCase() !== entry.value.username.toLowerCase()) {
    throw new AppError(
      "invalid_request",
      "confirmUsername does not match the account's username; nothing was deleted.",
    );
  }
  await deleteAll(kv, await credentialKeys(kv, memberId));
  await deleteAll(kv, await emailKeys(kv, entry.value));
  const { username } = entry.value;
  await deleteAll(kv, await dataKeys(kv, memberId, username));
  await deleteAll(kv, [keys.member(memberId), keys.username(entry.value.username.toLowerCase())]);
  // A sign-in or token mint that read the member before it was deleted may have committed since.
  await deleteAll(kv, [
    ...await credentialKeys(kv, memberId),
    ...await dataKeys(kv, memberId, username),
  ]);
}
