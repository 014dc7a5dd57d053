/**
 * Membership tiers (spec "A paid tier … changes how deeply the coach analyses a member's own
 * history. It does not change what the API exposes."; DESIGN §15). The tier is read only here and
 * by the coach; no tool, action or response depends on it.
 */

import type { Member } from "../accounts/accounts.ts";
import type { Clock } from "../foundation/clock.ts";
import { type DayNumber, formatDay, localDay, parseDay } from "../foundation/dates.ts";
import { AppError } from "../foundation/errors.ts";
import { keys } from "../foundation/kv_keys.ts";
import { RETRY, withKvRetry } from "../foundation/kv_commit.ts";
import { scheduleCoach } from "../record/coach_schedule.ts";
import { SCREEN_DEPTHS, type ScreenDepth } from "../analytics/coach_screen.ts";

/** The coach depth that produced a finding. */
export type Tier = "free" | "paid";

/**
 * What the coach does at one depth (content/docs/membership.md states the same table): what the
 * screen reads and tests (`ScreenDepth`, which `get_coach_insights` replays) and the allowances.
 */
export interface TierLimits extends ScreenDepth {
  /** New findings the coach may add in any 7 days. */
  weeklyNew: number;
  /** A weekly review finding every Monday. */
  weeklyReview: boolean;
}

/** The two depths. */
export const TIER_LIMITS: Readonly<Record<Tier, TierLimits>> = {
  free: { ...SCREEN_DEPTHS.free, weeklyNew: 3, weeklyReview: false },
  paid: { ...SCREEN_DEPTHS.paid, weeklyNew: 10, weeklyReview: true },
};

/** The member's depth today: paid while `paidUntil` (inclusive, member-local) has not passed. */
export function effectiveTier(member: Member, today: DayNumber): Tier {
  if (member.membership !== "paid") return "free";
  if (!member.paidUntil) return "paid";
  const until = parseDay(member.paidUntil);
  return until !== null && today <= until ? "paid" : "free";
}

/** A tier change as `deno task admin tier` asks for it. */
export interface TierChange {
  username: string;
  tier: Tier;
  /** YYYY-MM-DD, required for paid (a paid tier always has an end). */
  until?: string;
}

/**
 * Sets a member's tier, checked against the stored member so a concurrent profile change is not
 * lost. Throws `not_found` for an unknown username, `invalid_request` for a bad or past date.
 */
export async function setTier(
  kv: Deno.Kv,
  clock: Clock,
  change: TierChange,
): Promise<Member> {
  const id = await kv.get<string>(keys.username(change.username.toLowerCase()));
  if (!id.value) throw new AppError("not_found", `No member is named "${change.username}".`);
  return await withKvRetry(async () => {
    const entry = await kv.get<Member>(keys.member(id.value!));
    if (!entry.value) throw new AppError("not_found", "The account no longer exists.");
    const member = entry.value;
    let paidUntil: string | null = null;
    if (change.tier === "paid") {
      const until = change.until === undefined ? null : parseDay(change.until);
      const today = localDay(clock(), member.timezone, member.dayStartOffsetHours);
      if (until === null || until < today) {
        throw new AppError(
          "invalid_request",
          `A paid tier needs --until YYYY-MM-DD on or after ${formatDay(today)}.`,
        );
      }
      paidUntil = formatDay(until);
    }
    const next: Member = { ...member, membership: change.tier, paidUntil };
    // the coach's next poll re-analyses at the new depth; `deno task admin tier` also runs it at
    // once, since the service polls only every COACH_POLL_SECONDS
    const op = kv.atomic().check(entry).set(entry.key, next);
    scheduleCoach(op, member.id, { now: clock(), debounceMs: 0 });
    return (await op.commit()).ok ? next : RETRY;
  });
}
