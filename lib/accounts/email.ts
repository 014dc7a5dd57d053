/**
 * A member's e-mail address and the single-use links mailed to it (issue #24): verifying an
 * address, and resetting a forgotten password. Nothing here sends mail (lib/notify/mail.ts does,
 * from lib/actions/email_actions.ts): these functions mint, store and consume the links.
 *
 * A link is a secret of the `emailLink` kind (lib/foundation/secrets.ts: 256 bits), stored only as
 * its SHA-256 (RFC 6819 §5.1.4.1.3; OWASP Forgot Password Cheat Sheet: "store the token hashed"),
 * under `email_links` with `expireIn`, and consumed by a commit checked against the entry as read
 * and deleting it, so of two uses exactly one succeeds (single use).
 */

import type { Clock } from "../foundation/clock.ts";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { readKv, RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { hashSecret, isTokenOf, newSecret } from "../foundation/secrets.ts";
import type { Member } from "./accounts.ts";
import { replacePassword } from "./account_changes.ts";
import { hashPassword } from "./passwords.ts";

/** A verification link lasts a day: long enough to find the message, short enough to forget. */
export const VERIFY_LINK_MS = 24 * 3600 * 1000;
/** A reset link lasts 30 minutes (OWASP Forgot Password Cheat Sheet: short-lived tokens). */
export const RESET_LINK_MS = 30 * 60 * 1000;

/** What a stored link is for. */
export type EmailLinkKind = "verify" | "reset";

/** A stored link (under the hash of its secret). */
export interface EmailLink {
  kind: EmailLinkKind;
  memberId: string;
  /** The address the link was mailed to. */
  address: string;
  expiresAt: number;
}

/** The refusal of every link that cannot be used: one message, whatever the reason. */
const badLink = () =>
  new AppError("invalid_link", "This link is unknown, expired or already used. Ask for a new one.");

/** The claim key part of an address: addresses are compared case-insensitively. */
export const addressKey = (address: string) => address.toLowerCase();

/** A member's e-mail state, as Settings shows it. */
export interface EmailState {
  email: string | null;
  pending: string | null;
}

/** The member's verified and pending addresses. */
export async function emailStateOf(kv: Deno.Kv, memberId: string): Promise<EmailState> {
  const entry = await readKv(() => kv.get<Member>(keys.member(memberId)));
  if (!entry.value) throw new AppError("not_found", "The account no longer exists.");
  return { email: entry.value.email ?? null, pending: entry.value.emailPending ?? null };
}

/** The member's links of `kind`, by their index entries. */
async function linksOf(kv: Deno.Kv, memberId: string, kind: EmailLinkKind) {
  const out: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: keys.emailLinksOfMember(memberId) })) {
    const link = await kv.get<EmailLink>(keys.emailLink(e.key[2] as string));
    if (!link.value || link.value.kind === kind) {
      out.push(e.key, keys.emailLink(e.key[2] as string));
    }
  }
  return out;
}

/** Adds a new link to `op` (both keys, with the link's expiry) and returns its secret. */
function addLink(op: Deno.AtomicOperation, link: EmailLink, ttl: number): string {
  const secret = newSecret("emailLink");
  const hash = hashSecret(secret);
  op.set(keys.emailLink(hash), link, { expireIn: ttl })
    .set(keys.emailLinkOfMember(link.memberId, hash), link.expiresAt, { expireIn: ttl });
  return secret;
}

/**
 * Records `address` as the member's pending address and mints its verification link (any older
 * verification link of theirs is deleted in the same commit: only the newest works). The verified
 * address, if any, stays in use until the new one is verified. Returns the link's secret.
 */
export async function startAddressChange(
  kv: Deno.Kv,
  clock: Clock,
  memberId: string,
  address: string,
): Promise<string> {
  return await withKvRetry(async () => {
    const member = await kv.get<Member>(keys.member(memberId));
    if (!member.value) throw new AppError("not_found", "The account no longer exists.");
    const op = kv.atomic().check(member)
      .set(member.key, { ...member.value, emailPending: address } satisfies Member);
    for (const key of await linksOf(kv, memberId, "verify")) op.delete(key);
    const expiresAt = clock() + VERIFY_LINK_MS;
    const secret = addLink(op, { kind: "verify", memberId, address, expiresAt }, VERIFY_LINK_MS);
    return (await op.commit()).ok ? secret : RETRY;
  });
}

/** Reads the link of `secret` if it is of `kind` and still valid; else throws `invalid_link`. */
async function readLink(kv: Deno.Kv, clock: Clock, secret: string, kind: EmailLinkKind) {
  if (!isTokenOf("emailLink", secret)) throw badLink();
  const entry = await kv.get<EmailLink>(keys.emailLink(hashSecret(secret)));
  // expiresAt is checked too: expired keys "may still be visible for some time" (Deno KV docs)
  if (!entry.value || entry.value.kind !== kind || entry.value.expiresAt <= clock()) {
    throw badLink();
  }
  return entry as Deno.KvEntry<EmailLink>;
}

/**
 * Verifies the address of a verification link: claims it for the member (`email_addresses`,
 * create-only unless it is already theirs), makes it their address, releases the old one, and
 * deletes the link — one commit, checked against the link, the member and the claim as read.
 * Throws `invalid_link`, or `invalid_request` when another account verified the address first.
 */
export async function verifyAddress(kv: Deno.Kv, clock: Clock, secret: string): Promise<string> {
  return await withKvRetry(async () => {
    const link = await readLink(kv, clock, secret, "verify");
    const { memberId, address } = link.value;
    const [member, claim] = await kv.getMany<[Member, string]>([
      keys.member(memberId),
      keys.emailAddress(addressKey(address)),
    ]);
    if (!member.value) throw badLink();
    if (claim.value && claim.value !== memberId) {
      throw new AppError("invalid_request", "Another account already uses this address.");
    }
    const old = member.value.email;
    const pending = member.value.emailPending === address ? null : member.value.emailPending;
    const op = kv.atomic().check(link, member, claim)
      .delete(link.key).delete(keys.emailLinkOfMember(memberId, link.key[1] as string))
      .set(member.key, { ...member.value, email: address, emailPending: pending ?? null })
      .set(claim.key, memberId);
    if (old && addressKey(old) !== addressKey(address)) {
      op.delete(keys.emailAddress(addressKey(old)));
    }
    return (await op.commit()).ok ? address : RETRY;
  });
}

/**
 * Mints a reset link for the account whose verified address is `address`, or returns null when
 * no account has it (the caller answers the same either way). Returns the secret and the address
 * as the member verified it.
 */
export async function startPasswordReset(
  kv: Deno.Kv,
  clock: Clock,
  address: string,
): Promise<{ secret: string; address: string } | null> {
  return await withKvRetry(async () => {
    const claim = await kv.get<string>(keys.emailAddress(addressKey(address)));
    const member = claim.value ? await kv.get<Member>(keys.member(claim.value)) : null;
    const verified = member?.value?.email;
    if (!member?.value || !verified || addressKey(verified) !== addressKey(address)) return null;
    const memberId = member.value.id;
    const expiresAt = clock() + RESET_LINK_MS;
    const op = kv.atomic().check(claim, member);
    const secret = addLink(
      op,
      { kind: "reset", memberId, address: verified, expiresAt },
      RESET_LINK_MS,
    );
    return (await op.commit()).ok ? { secret, address: verified } : RETRY;
  });
}

/** Options of `resetPasswordWithLink`. */
export interface LinkResetOptions {
  secret: string;
  /** Validated by `Password`. */
  newPassword: string;
  iterations: number;
  /** Also end every API token and connected app (OAuth grant). */
  endTokensAndApps: boolean;
}

/**
 * Sets a new password from a reset link: the link and every other reset link of the member are
 * deleted first, in a commit checked against the link (so it works once), then the new hash is
 * stored and EVERY session ended (OWASP Forgot Password Cheat Sheet: invalidate sessions after a
 * reset; whoever had the password may hold one), and on request every token and app. A crash
 * between the two leaves the old password and a spent link: the member asks for a new one.
 */
export async function resetPasswordWithLink(
  kv: Deno.Kv,
  clock: Clock,
  options: LinkResetOptions,
): Promise<void> {
  const memberId = await withKvRetry(async () => {
    const link = await readLink(kv, clock, options.secret, "reset");
    const op = kv.atomic().check(link).delete(link.key);
    for (const key of await linksOf(kv, link.value.memberId, "reset")) op.delete(key);
    return (await op.commit()).ok ? link.value.memberId : RETRY;
  });
  const passwordHash = await hashPassword(options.newPassword, options.iterations);
  await replacePassword(kv, {
    memberId,
    passwordHash,
    keepHash: null,
    endTokensAndApps: options.endTokensAndApps,
  });
}
