/**
 * What `deno task admin` does to members and reports about the KV (issue #14). Every change goes
 * through the same lib/accounts function the service uses, so it is as safe while the service runs
 * as a member's own request: checked atomic commits, credentials ended everywhere at once.
 */

import { type Member, type Session } from "../accounts/accounts.ts";
import { deleteAccount, replacePassword } from "../accounts/account_changes.ts";
import { hashPassword } from "../accounts/passwords.ts";
import { newSecret } from "../foundation/secrets.ts";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { kvFileOf } from "./backup.ts";
import { readDataFormat } from "./migrations.ts";

/** One row of `admin members`. */
export interface MemberRow {
  username: string;
  createdAt: string;
  /** Latest sign-in or API-token use (ISO), null if neither is known. */
  lastActive: string | null;
  tier: string;
  entries: number;
  columns: number;
  apiTokens: number;
  sessions: number;
  oauthGrants: number;
}

async function count(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

async function lastActive(kv: Deno.Kv, memberId: string): Promise<string | null> {
  let latest = 0;
  for await (const e of kv.list<number>({ prefix: keys.sessionsOfMember(memberId) })) {
    const session = await kv.get<Session>(keys.session(e.key[2] as string));
    latest = Math.max(latest, session.value?.createdAt ?? 0);
  }
  for await (const e of kv.list({ prefix: keys.apiTokensOfMember(memberId) })) {
    const used = await kv.get<number>(keys.apiTokenLastUsed(memberId, e.key[2] as string));
    latest = Math.max(latest, used.value ?? 0);
  }
  return latest ? new Date(latest).toISOString() : null;
}

/** Every member with their counts, by username. */
export async function listMembers(kv: Deno.Kv): Promise<MemberRow[]> {
  const rows: MemberRow[] = [];
  for await (const { value: m } of kv.list<Member>({ prefix: keys.membersAll() })) {
    const columns = (await kv.get<unknown[]>(keys.columns(m.id))).value ?? [];
    rows.push({
      username: m.username,
      createdAt: m.createdAt,
      lastActive: await lastActive(kv, m.id),
      tier: m.membership === "paid" ? `paid until ${m.paidUntil ?? "—"}` : "free",
      entries: await count(kv, keys.entriesOf(m.id)),
      columns: columns.length,
      apiTokens: await count(kv, keys.apiTokensOfMember(m.id)),
      sessions: await count(kv, keys.sessionsOfMember(m.id)),
      oauthGrants: await count(kv, keys.oauthGrantsOf(m.id)),
    });
  }
  return rows.sort((a, b) => a.username.localeCompare(b.username));
}

/** The member id of a username (case-insensitive), or `not_found`. */
export async function memberIdOf(kv: Deno.Kv, username: string): Promise<string> {
  const id = await kv.get<string>(keys.username(username.toLowerCase()));
  if (!id.value) throw new AppError("not_found", `No member is named "${username}".`);
  return id.value;
}

/**
 * Gives the member a new random password and ends every session (OWASP Forgot Password Cheat
 * Sheet: a reset invalidates existing sessions) and, unless `keepTokensAndApps`, every API token
 * and connected app, as the member's own password form does by default. Returns the password,
 * shown once to the operator, who hands it over out of band; the member signs in with it and sets
 * their own under Settings.
 */
export async function resetPassword(
  kv: Deno.Kv,
  options: { username: string; iterations: number; keepTokensAndApps?: boolean },
): Promise<string> {
  const memberId = await memberIdOf(kv, options.username);
  // 256 bits of randomness (newSecret): not guessable within any rate limit.
  const password = newSecret("resetPassword");
  const passwordHash = await hashPassword(password, options.iterations);
  await replacePassword(kv, {
    memberId,
    passwordHash,
    keepHash: null,
    endTokensAndApps: options.keepTokensAndApps !== true,
  });
  return password;
}

/** Deletes the member exactly as their own `deleteAccount` does. */
export async function deleteMember(kv: Deno.Kv, username: string): Promise<void> {
  const memberId = await memberIdOf(kv, username);
  await deleteAccount(kv, { memberId, confirmUsername: username });
}

/** What `admin stats` prints. */
export interface KvStats {
  dataFormat: number | null;
  members: number;
  entries: number;
  apiTokens: number;
  sessions: number;
  oauthGrants: number;
  keys: number;
  /** Bytes of the KV file and its WAL; null for a remote KV. */
  fileBytes: number | null;
}

async function fileBytes(path: string | null): Promise<number | null> {
  if (!path) return null;
  let total = 0;
  for (const f of [path, `${path}-wal`]) {
    total += await Deno.stat(f).then((s) => s.size, () => 0);
  }
  return total;
}

/** Counts of the whole KV and its size on disk. */
export async function kvStats(kv: Deno.Kv, kvPath: string): Promise<KvStats> {
  return {
    dataFormat: await readDataFormat(kv),
    members: await count(kv, keys.membersAll()),
    entries: await count(kv, keys.entriesAll()),
    apiTokens: await count(kv, keys.apiTokensAll()),
    sessions: await count(kv, keys.sessionsAll()),
    oauthGrants: await count(kv, keys.oauthGrantsAll()),
    keys: await count(kv, keys.everything()),
    fileBytes: await fileBytes(kvFileOf(kvPath)),
  };
}
