/**
 * The data-format version of a KV and the numbered steps that bring an older one up to date
 * (issue #14). The version is one number under `data_format`. Start-up (main.ts) refuses a KV whose
 * version differs from `DATA_FORMAT_VERSION`: a newer one was written by code it does not know, an
 * older one must first be backed up and migrated by the operator (`deno task admin backup …`, then
 * `deno task admin migrate`), so an irreversible change to years of records never happens without
 * a backup the operator holds.
 *
 * Rules for a step: idempotent (it may run twice, or in two processes at once, or be interrupted
 * and re-run), every write a checked atomic commit, and expand-only — what it leaves must still be
 * served by the previous release, because `migrate` runs while the old version is still serving.
 */

import { commitKv, RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import {
  keys,
  type OAuthSecretKey,
  rateLimitCounterId,
  rateLimitSweepAt,
} from "../foundation/kv_keys.ts";
import { KV_LIMITS } from "../foundation/kv_limits.ts";
import type { Member, Session } from "../accounts/accounts.ts";
import type { CoachDue } from "../record/coach_schedule.ts";
import { type PolicyName, RATE_LIMIT_POLICIES } from "../policy/rate_limit.ts";

/** The format this code reads and writes. Bump it with every new step. */
export const DATA_FORMAT_VERSION = 6;

/** One numbered step: it brings format `to - 1` to `to`. */
export interface MigrationStep {
  to: number;
  summary: string;
  /** Returns how many keys it changed (0 when run again). */
  run(kv: Deno.Kv): Promise<number>;
}

/**
 * Step 1 (issue #9): every session is indexed under `sessions_by_member`, in the same commit as the
 * session itself since #9; sessions created before it are found by neither `changePassword` nor
 * `deleteAccount`, so a password change would leave them signed in.
 */
async function indexSessions(kv: Deno.Kv): Promise<number> {
  let changed = 0;
  for await (const e of kv.list<Session>({ prefix: keys.sessionsAll() })) {
    const hash = e.key[1] as string;
    const { memberId, expiresAt } = e.value;
    const index = keys.sessionOfMember(memberId, hash);
    const left = expiresAt - Date.now();
    if (left <= 0) continue;
    // Checked against the session as read: a sign-out meanwhile deletes it, and no index remains.
    const res = await commitKv(() =>
      kv.atomic().check(e).check({ key: index, versionstamp: null })
        .set(index, expiresAt, { expireIn: left })
    );
    if (res.ok) changed++;
  }
  return changed;
}

/** Step 2 (issue #12): members created before tiers get the explicit `free` membership. */
async function defaultMembership(kv: Deno.Kv): Promise<number> {
  let changed = 0;
  for await (const e of kv.list<Member>({ prefix: keys.membersAll() })) {
    if (e.value.membership !== undefined) continue;
    const ok = await withKvRetry(async () => {
      const entry = await kv.get<Member>(e.key);
      if (!entry.value || entry.value.membership !== undefined) return false;
      const next: Member = { ...entry.value, membership: "free", paidUntil: null };
      return (await kv.atomic().check(entry).set(entry.key, next).commit()).ok ? true : RETRY;
    });
    if (ok) changed++;
  }
  return changed;
}

/** Step 3 (issue #9): the retired cache-epoch keys an older version left behind are deleted. */
async function dropRetiredKeys(kv: Deno.Kv): Promise<number> {
  let changed = 0;
  for (const prefix of keys.retiredPrefixes()) {
    // A list by prefix holds the keys below it, not the prefix key itself (`cache_epoch`).
    const found: Deno.KvKey[] = [];
    if ((await kv.get(prefix)).versionstamp !== null) found.push(prefix);
    for await (const e of kv.list({ prefix })) found.push(e.key);
    for (const key of found) await commitKv(() => kv.atomic().delete(key));
    changed += found.length;
  }
  return changed;
}

/** What every record keyed by an OAuth secret's hash holds (lib/oauth/grants.ts). */
type SecretEntry = Deno.KvEntry<{ memberId?: string; expiresAt?: number }>;

/** An index entry lives as long as its secret, and an hour at least (see `indexOAuthSecrets`). */
const MIN_INDEX_LIFETIME_MS = 60 * 60 * 1000;

function indexLifetime(expiresAt: number, now: number): number {
  return Math.max(expiresAt - now, MIN_INDEX_LIFETIME_MS);
}

/**
 * Indexes one group of secrets (at most `KV_LIMITS.keysPerRead`, so one `getMany` and one commit
 * of as many checks, within denokv's 10): those without an index entry get one, with the expiry
 * left to their secret. Each entry is checked absent, so a concurrent writer of the same entry (the
 * new release) makes the group read again. Returns how many entries it wrote.
 */
async function indexSecretGroup(kv: Deno.Kv, group: SecretEntry[], now: number): Promise<number> {
  const indexOf = (e: SecretEntry) =>
    keys.oauthSecretOfMember(e.value.memberId!, e.key as unknown as OAuthSecretKey);
  return await withKvRetry(async () => {
    const present = await kv.getMany(group.map(indexOf));
    const missing = group.filter((_, i) => present[i].versionstamp === null);
    if (missing.length === 0) return 0;
    const op = kv.atomic();
    for (const e of missing) {
      const index = indexOf(e);
      op.check({ key: index, versionstamp: null })
        .set(index, e.value.expiresAt!, { expireIn: indexLifetime(e.value.expiresAt!, now) });
    }
    return (await op.commit()).ok ? missing.length : RETRY;
  });
}

/**
 * Step 4 (issue #21): every OAuth secret (consent ticket, code, spent code, access and refresh
 * token) is indexed under `oauth_member_secrets`, as lib/oauth/grants.ts does in the commit
 * that writes one since #21; account deletion reads only that index. Paged (`batchSize` 1000, ten
 * secrets per `getMany` and per commit, within denokv's limits) and idempotent: an interrupted run
 * is resumed by running it again, which reads but writes only what is still missing. A secret past
 * its `expiresAt` that the KV has not purged yet is indexed too, for an hour (KV expiry is lazy:
 * deletion should not leave it behind); an index entry whose secret is gone meanwhile is harmless
 * (deletion deletes both, and it expires).
 */
async function indexOAuthSecrets(kv: Deno.Kv): Promise<number> {
  let changed = 0;
  const now = Date.now();
  for (const prefix of keys.oauthSecretPrefixes()) {
    let group: SecretEntry[] = [];
    const list = kv.list<SecretEntry["value"]>({ prefix }, { batchSize: KV_LIMITS.listBatch });
    for await (const e of list) {
      const { memberId, expiresAt } = e.value ?? {};
      if (typeof memberId !== "string" || typeof expiresAt !== "number") continue;
      group.push(e);
      if (group.length < KV_LIMITS.keysPerRead) continue;
      changed += await indexSecretGroup(kv, group, now);
      group = [];
    }
    if (group.length > 0) changed += await indexSecretGroup(kv, group, now);
  }
  return changed;
}

/**
 * Step 5 (issue #21): the coach is driven by its due-time index, no longer by a queue nor by a
 * walk of every `coach_due` key; each active member gets its index key at its `coach_due` time (a
 * time already past makes it due at once: the run is a no-op for a version analysed today), and
 * the retired queue's daily tick is deleted. Idempotent: the same key is set again.
 */
async function indexCoachDue(kv: Deno.Kv): Promise<number> {
  let changed = 0;
  let page: Deno.KvKey[] = [];
  // 100 keys (and their mirrors by member) a commit, only those not set yet (10 per getMany)
  const flush = async () => {
    const chunks = [];
    for (let i = 0; i < page.length; i += 10) chunks.push(page.slice(i, i + 10));
    const found = (await Promise.all(chunks.map((c) => kv.getMany(c)))).flat();
    const missing = found.filter((e) => e.versionstamp === null).map((e) => e.key);
    page = [];
    if (missing.length === 0) return;
    await commitKv(() => {
      const op = kv.atomic();
      for (const key of missing) {
        op.set(key, true).set(keys.coachDueOfMember(key[2] as string, key[1] as number), true);
      }
      return op;
    });
    changed += missing.length;
  };
  for await (const e of kv.list<CoachDue>({ prefix: keys.coachDueAll() }, { batchSize: 500 })) {
    if (typeof e.value?.dueAt !== "number") continue;
    page.push(keys.coachDueAt(e.value.dueAt, e.key[1] as string));
    if (page.length === 100) await flush();
  }
  await flush();
  if ((await kv.get(keys.retiredCoachDaily())).versionstamp !== null) {
    await commitKv(() => kv.atomic().delete(keys.retiredCoachDaily()));
    changed++;
  }
  return changed;
}

/**
 * Step 6 (issue #21): rate-limit counters are swept from an index ordered by when each may go
 * (`rate_limit_sweep`), written in the commit that first writes the counter; the sweep no longer
 * lists every counter. A counter written before has no index key and would never be swept: each
 * gets one (due at once if its window has ended). Idempotent: only missing keys are set. The
 * previous release neither reads nor minds the index.
 */
async function indexRateLimitCounters(kv: Deno.Kv): Promise<number> {
  let changed = 0;
  let page: { key: Deno.KvKey; sweepAt: number }[] = [];
  const flush = async () => {
    const chunks = [];
    for (let i = 0; i < page.length; i += 10) chunks.push(page.slice(i, i + 10));
    const found = (await Promise.all(chunks.map((c) => kv.getMany(c.map((p) => p.key)))))
      .flat();
    const missing = page.filter((_, i) => found[i].versionstamp === null);
    page = [];
    if (missing.length === 0) return;
    const now = Date.now();
    await commitKv(() => {
      const op = kv.atomic();
      // the same slack as the limiter's own keys: they outlive their sweep time by a day
      for (const { key, sweepAt } of missing) {
        op.set(key, true, { expireIn: Math.max(sweepAt - now, 0) + 86_400_000 });
      }
      return op;
    });
    changed += missing.length;
  };
  for await (const e of kv.list({ prefix: keys.rateLimitPrefix() }, { batchSize: 500 })) {
    const [, policy, subject, index] = e.key;
    if (typeof policy !== "string" || typeof subject !== "string") continue;
    if (typeof index !== "number") continue;
    // a policy since retired counts as a minute's window: swept a minute later at most
    const w = RATE_LIMIT_POLICIES[policy as PolicyName]?.w ?? 60;
    const sweepAt = rateLimitSweepAt(index, w);
    page.push({
      key: keys.rateLimitSweep(sweepAt, rateLimitCounterId(policy, subject, index)),
      sweepAt,
    });
    if (page.length === 500) await flush();
  }
  await flush();
  return changed;
}

/** Every step, in order; `MIGRATIONS[i].to === i + 1`. */
export const MIGRATIONS: readonly MigrationStep[] = [
  { to: 1, summary: "index every session under sessions_by_member", run: indexSessions },
  { to: 2, summary: "give members without a tier the free membership", run: defaultMembership },
  { to: 3, summary: "delete the retired cache_epoch keys", run: dropRetiredKeys },
  {
    to: 4,
    summary: "index every OAuth secret under oauth_member_secrets",
    run: indexOAuthSecrets,
  },
  { to: 5, summary: "index every active member's coach run by due time", run: indexCoachDue },
  {
    to: 6,
    summary: "index every rate-limit counter for the sweep of ended windows",
    run: indexRateLimitCounters,
  },
];

/**
 * The KV's format: the stored number; with none stored, 0 if any member exists (written before
 * versions were stored) and `null` for a KV without members (nothing to migrate: a new install).
 */
export async function readDataFormat(kv: Deno.Kv): Promise<number | null> {
  const stored = await kv.get<number>(keys.dataFormat());
  if (stored.value !== null) return stored.value;
  for await (const _ of kv.list({ prefix: keys.membersAll() }, { limit: 1 })) return 0;
  return null;
}

/** Stores `version` unless a larger one is stored already (two migrators may race). */
async function stampDataFormat(kv: Deno.Kv, version: number): Promise<void> {
  await withKvRetry(async () => {
    const entry = await kv.get<number>(keys.dataFormat());
    if (entry.value !== null && entry.value >= version) return undefined;
    return (await kv.atomic().check(entry).set(keys.dataFormat(), version).commit()).ok
      ? undefined
      : RETRY;
  });
}

/** A KV this code must not run on as it is; the message tells the operator what to do. */
export class DataFormatError extends Error {}

/** What `migrate` did. */
export interface MigrationReport {
  from: number;
  to: number;
  steps: { to: number; summary: string; changed: number }[];
}

/** The refusal of a KV newer than this code (start-up, `migrate` and the writing admin commands). */
export function newerFormatMessage(found: number): string {
  return `This KV holds data format ${found}, newer than this version understands ` +
    `(${DATA_FORMAT_VERSION}): it was written by a newer Routine Tracker. Run that version ` +
    `(or restore a backup taken before the upgrade); nothing was changed.`;
}

/**
 * Runs every step above the KV's format, stamping the format after each, so an interrupted run
 * resumes where it stopped. Throws (nothing changed) on a KV newer than this code.
 */
export async function migrate(kv: Deno.Kv): Promise<MigrationReport> {
  const found = await readDataFormat(kv);
  const from = found ?? DATA_FORMAT_VERSION;
  if (from > DATA_FORMAT_VERSION) throw new DataFormatError(newerFormatMessage(from));
  const steps: MigrationReport["steps"] = [];
  for (const step of MIGRATIONS.filter((s) => s.to > from)) {
    steps.push({ to: step.to, summary: step.summary, changed: await step.run(kv) });
    await stampDataFormat(kv, step.to);
  }
  await stampDataFormat(kv, DATA_FORMAT_VERSION);
  return { from, to: DATA_FORMAT_VERSION, steps };
}

/**
 * Start-up's check: a new KV is stamped with the current format; the current format passes; any
 * other, or an unfinished restore, throws the message the operator needs (main.ts prints it and
 * exits).
 */
export async function checkDataFormat(kv: Deno.Kv): Promise<void> {
  // A half-restored KV (lib/operations/backup.ts) lacks keys; serving it would lose them for good.
  const restore = (await kv.get<{ file: string }>(keys.restoreInProgress())).value;
  if (restore) {
    throw new DataFormatError(
      `A restore into this KV did not finish: run \`deno task admin restore ${restore.file}\` ` +
        "again to finish it, then start the service.",
    );
  }
  const found = await readDataFormat(kv);
  if (found === null) return await stampDataFormat(kv, DATA_FORMAT_VERSION);
  if (found === DATA_FORMAT_VERSION) return;
  if (found > DATA_FORMAT_VERSION) throw new DataFormatError(newerFormatMessage(found));
  throw new DataFormatError(
    `This KV holds data format ${found}; this version needs ${DATA_FORMAT_VERSION}. Back it up ` +
      "and migrate it, then start again: `deno task admin backup <file>`, then " +
      "`deno task admin migrate`.",
  );
}
