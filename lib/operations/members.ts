/**
 * What `deno task admin` does to members and reports about the KV (issue #14). Every change goes
 * through the same lib/accounts function the service uses, so it is as safe while the service runs
 * as a member's own request: checked atomic commits, credentials ended everywhere at once.
 */

import { type Member, type Session } from "../accounts/accounts.ts";
import { deleteAccount, replacePassword } from "../accounts/account_changes.ts";
import { hashPassword } from "../accounts/passwords.ts";
import { newSecret } from "../accounts/secrets.ts";
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

/** Keys per list round trip when a count walks a prefix (Deno KV's default batch is 100). */
const COUNT_BATCH = 1_000;

async function count(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix }, { batchSize: COUNT_BATCH })) n++;
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

/** One member's row: its reads follow that member's own keys, not the instance. */
async function rowOf(kv: Deno.Kv, m: Member): Promise<MemberRow> {
  const columns = (await kv.get<unknown[]>(keys.columns(m.id))).value ?? [];
  return {
    username: m.username,
    createdAt: m.createdAt,
    lastActive: await lastActive(kv, m.id),
    tier: m.membership === "paid" ? `paid until ${m.paidUntil ?? "—"}` : "free",
    entries: await count(kv, keys.entriesOf(m.id)),
    columns: columns.length,
    apiTokens: await count(kv, keys.apiTokensOfMember(m.id)),
    sessions: await count(kv, keys.sessionsOfMember(m.id)),
    oauthGrants: await count(kv, keys.oauthGrantsOf(m.id)),
  };
}

/** One page of `admin members`: rows in username order, and where the next page starts. */
export interface MemberPage {
  rows: MemberRow[];
  /** The last username of this page when more may follow (pass it as `after`), else null. */
  next: string | null;
}

/** Most rows a page may ask for. */
export const MAX_MEMBER_PAGE = 1_000;

/**
 * Up to `limit` members after the username `after` (case-insensitive), in username order (issue
 * #22). It walks the username claims, which KV keeps sorted, so a page reads keys in proportion to
 * its own members, and memory holds one page: listing 10,000 members once held every row and
 * sorted them all before printing the first.
 */
export async function listMembersPage(
  kv: Deno.Kv,
  page: { after?: string; limit: number },
): Promise<MemberPage> {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > MAX_MEMBER_PAGE) {
    throw new AppError("invalid_request", `A page holds 1 to ${MAX_MEMBER_PAGE} members.`);
  }
  const prefix = keys.usernamesAll();
  // just after the previous page's last claim (an empty byte string is the lowest key part)
  const start = page.after ? [...prefix, page.after.toLowerCase(), new Uint8Array()] : undefined;
  const ids: string[] = [];
  const claims = kv.list<string>(start ? { prefix, start } : { prefix }, {
    limit: page.limit,
    batchSize: page.limit,
  });
  for await (const e of claims) ids.push(e.value);
  const rows: MemberRow[] = [];
  for (let i = 0; i < ids.length; i += 10) {
    // getMany takes at most 10 keys (Deno KV and denokv limit)
    const members = await kv.getMany<Member[]>(ids.slice(i, i + 10).map((id) => keys.member(id)));
    // the ten rows at once: on a remote KV each row's reads are round trips
    rows.push(...await Promise.all(members.flatMap((m) => m.value ? [rowOf(kv, m.value)] : [])));
  }
  const last = rows.at(-1);
  return { rows, next: ids.length === page.limit && last ? last.username : null };
}

/** Every member with their counts, by username, one page at a time (memory holds one page). */
export async function* eachMember(kv: Deno.Kv, pageSize = 100): AsyncGenerator<MemberRow> {
  let after: string | undefined;
  do {
    const page = await listMembersPage(kv, { after, limit: pageSize });
    yield* page.rows;
    after = page.next ?? undefined;
  } while (after);
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
  // 128 bits of randomness (newSecret): not guessable within any rate limit.
  const password = newSecret("reset-");
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

/** The first key part each count of `KvStats` walks. */
const COUNTED = {
  members: keys.membersAll()[0],
  entries: keys.entriesAll()[0],
  apiTokens: keys.apiTokensAll()[0],
  sessions: keys.sessionsAll()[0],
  oauthGrants: keys.oauthGrantsAll()[0],
} as const;

/**
 * Counts of the whole KV and its size on disk, in one streamed walk of every key (issue #22): it
 * reads each key once, 1,000 per round trip, and holds nothing but the counts. (It walked the KV
 * six times before, the entries twice, 100 keys per round trip.) A count needs every key, so its
 * time grows with the KV; its memory does not.
 */
export async function kvStats(kv: Deno.Kv, kvPath: string): Promise<KvStats> {
  const counts = { members: 0, entries: 0, apiTokens: 0, sessions: 0, oauthGrants: 0, keys: 0 };
  const byPart = new Map<unknown, keyof typeof COUNTED>(
    Object.entries(COUNTED).map(([name, part]) => [part, name as keyof typeof COUNTED]),
  );
  for await (const e of kv.list({ prefix: keys.everything() }, { batchSize: COUNT_BATCH })) {
    counts.keys++;
    const name = byPart.get(e.key[0]);
    if (name) counts[name]++;
  }
  return {
    dataFormat: await readDataFormat(kv),
    ...counts,
    fileBytes: await fileBytes(kvFileOf(kvPath)),
  };
}
