/**
 * One coach pass over a member record at one depth: the statistical screen (lib/coach/screen.ts)
 * and the events (lib/coach/event_findings.ts), merged with what is already stored under the
 * weekly cap. Pure: no KV, no clock but `record.now`; the same record and stored state give the
 * same result, so a job replayed for an analysed version changes nothing.
 */

import { formatDay } from "../foundation/dates.ts";
import type { CoachInsight, MemberRecord, StoredFindings } from "../record/types.ts";
import { type Draft, findingId, insightOf, withLoggingCaveat } from "./draft.ts";
import { eventDrafts, weeklyReviewDraft } from "./event_findings.ts";
import { screenRange, screenRecord } from "./screen.ts";
import { statisticalDrafts, unlockDraft } from "./stat_findings.ts";
import { type Tier, TIER_LIMITS } from "./tier.ts";
import { FINDING_TTL_DAYS } from "../record/types.ts";

/** Stored findings per member. */
export const MAX_STORED = 50;
/** Dismissed ids remembered. */
const MAX_DISMISSED = 200;
const DAY_MS = 86_400_000;

/** What one pass produced before the cap. */
export interface Analysis {
  drafts: Draft[];
  /** Tests in the one Benjamini–Yekutieli family. */
  testsRun: number;
}

/** Runs every analysis of `tier` on `record`, most important first. */
export function analyseRecord(record: MemberRecord, tier: Tier): Analysis {
  const limits = TIER_LIMITS[tier];
  const range = screenRange(record.today, limits);
  const screen = screenRecord(record, range, limits);
  const drafts = [
    ...statisticalDrafts(record, screen, tier).map((d) => withLoggingCaveat(record, d)),
    ...eventDrafts(record).filter((d) => tier === "paid" || d.type !== "record"),
  ];
  const unlock = unlockDraft(record, screen.unlocks, formatDay(range.start));
  if (unlock) drafts.push(unlock);
  drafts.sort((a, b) => a.priority - b.priority || b.weight - a.weight);
  return { drafts, testsRun: screen.testsRun };
}

/** An empty stored state. */
export function emptyFindings(): StoredFindings {
  return { analysed: null, insights: [], dismissed: [], lease: null, runs: 0 };
}

/**
 * Merges a pass into the stored findings: a finding already stored (same id) is refreshed and
 * keeps its `created_at`; a dismissed one never returns; new ones are added while fewer than the
 * tier's weekly allowance were created in the last 7 days; then the paid weekly review; expired
 * ones go and at most 50 stay, newest first.
 */
export function mergeFindings(
  stored: StoredFindings,
  analysis: Analysis,
  options: { tier: Tier; record: MemberRecord },
): CoachInsight[] {
  const now = options.record.now, nowMs = Date.parse(now);
  const limits = TIER_LIMITS[options.tier];
  const byId = new Map(stored.insights.map((i) => [i.id, i]));
  const dismissed = new Set(stored.dismissed);
  const weekAgo = nowMs - 7 * DAY_MS;
  let newThisWeek =
    stored.insights.filter((i) => i.type !== "weekly_review" && Date.parse(i.created_at) > weekAgo)
      .length;
  const add = (d: Draft) => {
    const id = findingId(d);
    if (dismissed.has(id)) return;
    const old = byId.get(id);
    if (old) byId.set(id, insightOf(d, old.created_at, options.tier));
    else if (newThisWeek < limits.weeklyNew) {
      byId.set(id, insightOf(d, now, options.tier));
      newThisWeek++;
    }
  };
  analysis.drafts.forEach(add);
  if (limits.weeklyReview) {
    const review = weeklyReviewDraft(options.record, newThisWeek);
    // the review is the tier's promise, outside the weekly allowance of findings
    if (!dismissed.has(findingId(review)) && !byId.has(findingId(review))) {
      byId.set(findingId(review), insightOf(review, now, options.tier));
    }
  }
  const oldest = nowMs - FINDING_TTL_DAYS * DAY_MS;
  return [...byId.values()]
    .filter((i) => Date.parse(i.created_at) > oldest)
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || a.priority - b.priority)
    .slice(0, MAX_STORED);
}

/** Adds `id` to the dismissed list (bounded, most recent kept) and drops it from the findings. */
export function dismissFinding(stored: StoredFindings, id: string): StoredFindings {
  const dismissed = [...stored.dismissed.filter((d) => d !== id), id].slice(-MAX_DISMISSED);
  return { ...stored, dismissed, insights: stored.insights.filter((i) => i.id !== id) };
}
