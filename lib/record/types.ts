/**
 * The member record as the analytics read it. Both the synthetic sandbox member
 * (`lib/sandbox/synthetic_member.ts`) and members' real records (stored in KV) are turned into a
 * `MemberRecord`, so the eighteen tools run one code path for both (issue #2 §7).
 */

import type { DayNumber } from "../foundation/dates.ts";
import type { Column } from "./columns.ts";
import type { PauseSpan } from "./pauses.ts";

// The column model's types live with its schemas; analytics keep importing them from here.
export type { Column, ColumnType, DailyAgg, Direction, Goal, MissingPolicy } from "./columns.ts";

/** One day's state in one column: a value, an explicit skip, or absent (= missing). */
export type DayValue = number | boolean | "skip";

/** A coach finding older than this many days is dropped (lib/coach/ stores, reads drop it too). */
export const FINDING_TTL_DAYS = 90;

/** A stored coach finding (`get_coach_insights`). */
export interface CoachInsight {
  id: string;
  created_at: string;
  type:
    | "streak_milestone"
    | "record"
    | "trend"
    | "correlation"
    | "goal_miss"
    | "anomaly"
    | "coverage"
    | "factor_effect"
    | "weekday_pattern"
    | "period_comparison"
    | "weekly_review";
  priority: 1 | 2 | 3;
  metrics: string[];
  text: string;
  evidence: {
    tool: string;
    arguments: Record<string, unknown>;
    /** Values at paths of the tool's result (`current.length`), as the call returns them. */
    key_numbers: Record<string, unknown>;
    /**
     * A statistical finding's second call: `get_coach_insights` with `screen` and `screen_end`,
     * whose answer reproduces the q and the family size the sentence states (issue #20 item 10).
     */
    family?: {
      tool: string;
      arguments: Record<string, unknown>;
      key_numbers: Record<string, unknown>;
    };
  };
  /** The coach depth that produced it (DESIGN §15). */
  depth: "free" | "paid";
}

/** A member's coach findings as stored in KV (`coach_findings`, written only by lib/coach/). */
export interface StoredFindings {
  /** `${recordVersion}:${day}:${tier}` of the last completed run; a job for the same is a no-op. */
  analysed: string | null;
  /** Newest first, at most 50, none older than 90 days. */
  insights: CoachInsight[];
  /** Ids the member dismissed; a finding with such an id is never stored again. */
  dismissed: string[];
  /** Which run holds the member (instance claim), until when (ms). */
  lease: { owner: string; until: number } | null;
  /** Completed runs, for operators and the burst test. */
  runs: number;
}

/**
 * A read-only snapshot of one member's record at one instant. Values are keyed by member-local
 * day number; a day absent from a column's map is `missing` (never imputed, never 0).
 */
export interface MemberRecord {
  /** True for the sandbox member; the MCP layer marks every response synthetic. */
  synthetic: boolean;
  /** IANA time zone of the member. */
  timezone: string;
  /** Hours after midnight at which the member's day starts (Loop's day-start offset). */
  dayStartOffsetHours: number;
  /** The member-local date of "today" at `now`. */
  today: DayNumber;
  /** The instant the snapshot describes (ISO 8601 UTC), reported as `generated_at`. */
  now: string;
  /** Columns in display order, archived ones included (flagged). */
  columns: Column[];
  /** Per column key: day → value. */
  values: ReadonlyMap<string, ReadonlyMap<DayNumber, DayValue>>;
  /**
   * The member's pauses (issue #25). Their days up to `today` already read as `"skip"` in
   * `values` where nothing is logged (lib/record/pauses.ts `withPauses`); pages use this to say
   * "paused" rather than "skipped". Absent for the sandbox member.
   */
  pauses?: readonly PauseSpan[];
  /** Optional free-text note per day. */
  notes: ReadonlyMap<DayNumber, string>;
  /** Stored coach findings, newest first. */
  insights: CoachInsight[];
}
