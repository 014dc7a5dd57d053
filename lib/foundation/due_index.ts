/**
 * A due-time index with a poll lease (issue #21): scheduled work without a queue, so it runs the
 * same on a local file, on KV Connect (`denokv`, Deno Deploy from outside) and on the new Deno
 * Deploy — none of the latter has queues ("Enqueue operations are not supported in KV Connect").
 *
 * Work is marked due by a key `[prefix, dueAt, id]` set in the same commit as the write that makes
 * it due, with its mirror by id (so everything of one id is found without a scan). Keys order by `dueAt` (Deno KV orders numbers numerically), so a poll lists from the
 * FRONT up to now: its reads grow with what is due, never with what is merely scheduled. The
 * owner removes a key once its work is done; a key left (work busy elsewhere, or failed) is seen
 * again by the next poll. One instance polls at a time: the poll takes a lease — an expiring key,
 * taken and renewed by a versionstamp check, so two instances never both hold it (the check makes
 * the commit atomic against any other writer; Deno KV `AtomicOperation.check`).
 *
 * Generic over the prefix: the coach uses it (lib/coach/worker.ts); reminders (issue #24) can too.
 */

const DAY_MS = 86_400_000;
/** When daily work is due: 03:00 UTC, a quiet hour in Europe and the Americas. */
export const DAILY_AT_MS = 3 * 3_600_000;

/** The next daily due time after `now`: 03:00 UTC of the next day it has not passed. */
export function nextDailyAt(now: number): number {
  const today = Math.floor(now / DAY_MS) * DAY_MS + DAILY_AT_MS;
  return today > now ? today : today + DAY_MS;
}

/** The keys of one index; each comes from lib/foundation/kv_keys.ts. */
export interface DueIndexKeys {
  /** List prefix of every due key, e.g. `["coach_due_at"]`. */
  all: () => Deno.KvKey;
  /** The due key of `id` at `dueAt`, e.g. `["coach_due_at", dueAt, memberId]`. */
  at: (dueAt: number, id: string) => Deno.KvKey;
  /** The same key by id, e.g. `["coach_due_by_member", memberId, dueAt]` (deletion by id). */
  byId: (id: string, dueAt: number) => Deno.KvKey;
  /** The poll lease. */
  lease: () => Deno.KvKey;
}

/** One due key as read. */
export interface DueItem {
  key: Deno.KvKey;
  dueAt: number;
  id: string;
}

/** The poll lease as stored. */
interface Lease {
  owner: string;
  until: number;
}

/** Adds "`id` is due at `dueAt`" to `op` (the caller's own commit). */
export function markDue(
  op: Deno.AtomicOperation,
  index: DueIndexKeys,
  id: string,
  dueAt: number,
): Deno.AtomicOperation {
  return op.set(index.at(dueAt, id), true).set(index.byId(id, dueAt), true);
}

/** Adds "`item` is done" to `op`: both its keys go. */
export function unmarkDue(
  op: Deno.AtomicOperation,
  index: DueIndexKeys,
  item: DueItem,
): Deno.AtomicOperation {
  return op.delete(item.key).delete(index.byId(item.id, item.dueAt));
}

/**
 * Takes (or renews) the lease for `ms` unless another owner holds an unexpired one. Returns the
 * lease's new versionstamp, or null when another instance holds it or won the race.
 */
export async function takeLease(
  kv: Deno.Kv,
  index: DueIndexKeys,
  claim: { owner: string; now: number; ms: number },
): Promise<string | null> {
  const entry = await kv.get<Lease>(index.lease());
  const held = entry.value;
  // `until` is checked too: an expired key may be read before KV deletes it.
  if (held && held.owner !== claim.owner && held.until > claim.now) return null;
  const next: Lease = { owner: claim.owner, until: claim.now + claim.ms };
  const res = await kv.atomic().check(entry)
    .set(index.lease(), next, { expireIn: claim.ms }).commit();
  return res.ok ? res.versionstamp : null;
}

/** Gives the lease back at once (only if it is still the one this owner took). */
export async function releaseLease(
  kv: Deno.Kv,
  index: DueIndexKeys,
  versionstamp: string,
): Promise<void> {
  await kv.atomic().check({ key: index.lease(), versionstamp }).delete(index.lease()).commit();
}

/**
 * Up to `limit` due keys with `dueAt <= until`, earliest first, after `cursor` (the key of the
 * last item of the previous page, if any): one list round trip.
 */
export async function readDue(
  kv: Deno.Kv,
  index: DueIndexKeys,
  page: { until: number; limit: number; after?: Deno.KvKey },
): Promise<DueItem[]> {
  // end is exclusive: every key at `until` (any id) sorts before [prefix, until + 1]
  const end = [...index.all(), page.until + 1];
  // just after the previous page's last key (an empty byte string is the lowest key part)
  const start = page.after ? [...page.after, new Uint8Array()] : index.all();
  const out: DueItem[] = [];
  const pages = kv.list({ start, end }, { limit: page.limit, batchSize: page.limit });
  for await (const e of pages) {
    const [dueAt, id] = e.key.slice(index.all().length);
    if (typeof dueAt === "number" && typeof id === "string") out.push({ key: e.key, dueAt, id });
  }
  return out;
}

/** What one poll did. */
export interface PollReport {
  /** False when another instance held the lease: this poll read nothing else. */
  leased: boolean;
  /** Due keys handed to the handler. */
  seen: number;
}

/** Options of `pollDue`. */
export interface PollOptions {
  owner: string;
  clock: () => number;
  /** Due keys per page (one list round trip each). */
  batch: number;
  /** The lease lasts this long; it is renewed before every page. */
  leaseMs: number;
  /** Handles one page; removes the keys whose work is done (e.g. in the work's own commit). */
  handle: (items: DueItem[]) => Promise<void>;
}

/**
 * One poll: takes the lease, hands every key due now to `handle`, page by page from the front,
 * and gives the lease back. Keys due after the poll began wait for the next poll.
 */
export async function pollDue(
  kv: Deno.Kv,
  index: DueIndexKeys,
  options: PollOptions,
): Promise<PollReport> {
  const until = options.clock();
  const claim = () => ({ owner: options.owner, now: options.clock(), ms: options.leaseMs });
  let lease = await takeLease(kv, index, claim());
  if (!lease) return { leased: false, seen: 0 };
  let seen = 0;
  let after: Deno.KvKey | undefined;
  try {
    while (lease) {
      const items = await readDue(kv, index, { until, limit: options.batch, after });
      if (items.length === 0) break;
      await options.handle(items);
      seen += items.length;
      if (items.length < options.batch) break;
      after = items[items.length - 1].key;
      lease = await takeLease(kv, index, claim());
    }
  } finally {
    if (lease) await releaseLease(kv, index, lease);
  }
  return { leased: true, seen };
}
