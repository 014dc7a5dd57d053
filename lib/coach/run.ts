/**
 * One coach run for one member, safe with any number of instances (DESIGN §15): the run claims
 * the member with an atomic check on `coach_findings` (a lease), skips a record version already
 * analysed today, and commits its findings checked against the claim. The findings are part of
 * the record the tools read, so the commit bumps `record_versions` like any record write: every
 * instance's record cache (keyed on that version, read strongly per request) serves them next.
 * The version the commit creates is the one it records as analysed, so the bump starts no new run.
 */

import type { Member } from "../accounts/accounts.ts";
import type { Clock } from "../foundation/clock.ts";
import { localDay } from "../foundation/dates.ts";
import { keys } from "../foundation/kv_keys.ts";
import { commitKv, RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { readRecordBase, snapshotAt } from "../record/member_records.ts";
import { bumpOtherWrite } from "../record/record_snapshot.ts";
import type { CoachInsight, MemberRecord, StoredFindings } from "../record/types.ts";
import {
  analyseRecord,
  type Analysis,
  dismissFinding,
  emptyFindings,
  mergeFindings,
} from "./analyse.ts";
import { effectiveTier, type Tier } from "./tier.ts";

/** A run holds its member at most this long; a crashed run's claim lapses after it. */
export const LEASE_MS = 60_000;
/** Stored findings expire from KV when no run refreshes them for this long. */
export const FINDINGS_EXPIRE_MS = 120 * 86_400_000;

/** What a run did. */
export type RunOutcome =
  | { status: "ran"; tier: Tier; testsRun: number; insights: CoachInsight[] }
  | { status: "already_analysed" }
  | { status: "busy" }
  | { status: "no_member" };

/** Who runs and when. */
export interface RunContext {
  kv: Deno.Kv;
  clock: Clock;
  /** Identifies this instance's claim. */
  owner: string;
}

async function readState(kv: Deno.Kv, memberId: string) {
  const [version, findings, member] = await kv.getMany<[Deno.KvU64, StoredFindings, Member]>([
    keys.recordVersion(memberId),
    keys.coachFindings(memberId),
    keys.member(memberId),
  ]);
  return { version: version.value?.value ?? 0n, findings, member };
}

/**
 * Runs the coach for `memberId` now unless this record version was already analysed today at this
 * tier (`force` runs anyway, for `deno task admin coach`). Returns `busy` when another run holds the
 * member; the poll then leaves its due key for the next poll.
 */
export async function runCoach(
  ctx: RunContext,
  memberId: string,
  options: { force?: boolean } = {},
): Promise<RunOutcome> {
  const state = await readState(ctx.kv, memberId);
  const member = state.member.value;
  if (!member) return { status: "no_member" };
  const now = ctx.clock();
  const today = localDay(now, member.timezone, member.dayStartOffsetHours);
  const tier = effectiveTier(member, today);
  // a new write, a new day or a tier change each make a new analysis; nothing else does
  const analysedKey = `${state.version}:${today}:${tier}`;
  const stored = state.findings.value ?? emptyFindings();
  if (!options.force && stored.analysed === analysedKey) return { status: "already_analysed" };
  if (stored.lease && stored.lease.until > now && stored.lease.owner !== ctx.owner) {
    return { status: "busy" };
  }
  const claimed: StoredFindings = { ...stored, lease: { owner: ctx.owner, until: now + LEASE_MS } };
  // Every commit of a run is checked against the member entry: an account deleted meanwhile
  // (lib/accounts/account_changes.ts `deleteAccount`, on any instance) must not get its findings
  // or record version written back after the deletion's last sweep (issue #13: it did, in 4 of 4
  // runs of tests/multiprocess/freshness_test.ts at paid depth).
  const claim = await commitKv(() =>
    ctx.kv.atomic().check(state.findings).check(state.member)
      .set(keys.coachFindings(memberId), claimed, { expireIn: FINDINGS_EXPIRE_MS })
  );
  if (!claim.ok) return { status: "busy" };

  let analysis: Analysis, record: MemberRecord;
  try {
    record = snapshotAt(await readRecordBase(ctx.kv, memberId), now);
    analysis = analyseRecord(record, tier);
  } catch (err) {
    // give the member back at once rather than after the lease; the next poll retries it
    await releaseLease(ctx, memberId);
    throw err;
  }
  // A dismissal may land while the run works; re-read and merge again rather than lose it.
  for (let attempt = 0; attempt < 5; attempt++) {
    const [current, version, member] = await ctx.kv.getMany<[StoredFindings, Deno.KvU64, Member]>(
      [keys.coachFindings(memberId), keys.recordVersion(memberId), keys.member(memberId)],
    );
    if (!member.value) return { status: "no_member" };
    const base = current.value ?? claimed;
    if (base.lease?.owner !== ctx.owner) return { status: "busy" };
    const insights = mergeFindings(retireOtherDepth(base, tier), analysis, { tier, record });
    const next: StoredFindings = {
      ...base,
      analysed: nextAnalysed(version, state.version, `${today}:${tier}`),
      insights,
      lease: null,
      runs: base.runs + 1,
    };
    // counted as a write that changes no entry (lib/record/record_snapshot.ts)
    const res = await commitKv(() =>
      bumpOtherWrite(
        ctx.kv.atomic().check(current).check(version).check(member)
          .set(keys.coachFindings(memberId), next, { expireIn: FINDINGS_EXPIRE_MS }),
        memberId,
      )
    );
    if (res.ok) return { status: "ran", tier, testsRun: analysis.testsRun, insights };
  }
  return { status: "busy" };
}

/**
 * The stored findings without those of another depth (issue #20 item 10: a stale free "Your mood
 * is worsening … Confident" stood beside the paid finding that it improves). A tier change — set
 * by `setTier`, which schedules this run at once, or a paid tier's end, which the next daily run
 * meets since the tier is part of what a run records as analysed — re-analyses at the new depth;
 * what that pass finds again is stored anew at that depth, the rest of the old depth retires.
 */
function retireOtherDepth(stored: StoredFindings, tier: Tier): StoredFindings {
  return { ...stored, insights: stored.insights.filter((i) => i.depth === tier) };
}

/**
 * What a commit that bumps `version` records as analysed: the bumped version when the record is
 * still the one analysed (`seen`), else nothing — a write landed meanwhile and its job re-runs.
 */
function nextAnalysed(
  version: Deno.KvEntryMaybe<Deno.KvU64>,
  seen: bigint,
  dayAndTier: string,
): string | null {
  const current = version.value?.value ?? 0n;
  return current === seen ? `${current + 1n}:${dayAndTier}` : null;
}

/** Clears this run's claim if it still holds it (best effort). */
async function releaseLease(ctx: RunContext, memberId: string): Promise<void> {
  const current = await ctx.kv.get<StoredFindings>(keys.coachFindings(memberId));
  if (current.value?.lease?.owner !== ctx.owner) return;
  await commitKv(() =>
    ctx.kv.atomic().check(current)
      .set(keys.coachFindings(memberId), { ...current.value!, lease: null }, {
        expireIn: FINDINGS_EXPIRE_MS,
      })
  );
}

/**
 * Dismisses one of the member's findings: it leaves `get_coach_insights` at once (the commit bumps
 * the record version, like a coach run) and the coach never stores that id again. Returns false
 * when no stored finding has the id.
 */
export async function dismissInsight(
  kv: Deno.Kv,
  memberId: string,
  options: { id: string },
): Promise<boolean> {
  const id = options.id;
  return await withKvRetry(async () => {
    const [current, version] = await kv.getMany<[StoredFindings, Deno.KvU64]>([
      keys.coachFindings(memberId),
      keys.recordVersion(memberId),
    ]);
    const stored = current.value;
    if (!stored || !stored.insights.some((i) => i.id === id)) return false;
    // an analysis of the version before this bump still stands: only a finding went away
    const seen = version.value?.value ?? 0n;
    const analysed = stored.analysed?.startsWith(`${seen}:`)
      ? nextAnalysed(version, seen, stored.analysed.slice(`${seen}:`.length))
      : stored.analysed;
    const op = kv.atomic().check(current).check(version)
      .set(keys.coachFindings(memberId), { ...dismissFinding(stored, id), analysed }, {
        expireIn: FINDINGS_EXPIRE_MS,
      });
    const res = await bumpOtherWrite(op, memberId).commit();
    return res.ok ? true : RETRY;
  });
}
