/**
 * The column model of a member's record (domain-anchors §3.1): what a column is, its value types
 * and goal. The one definition the store validates writes with, the proxy views publish and the
 * tools report (`list_columns`); it lives with the record so no layer imports upward for it.
 */

import { z } from "zod";

/** Longest date span one call may cover (domain-anchors §3.1). */
export const MAX_SPAN_DAYS = 366;

/** A column's goal `{op, value, per, times}` (domain-anchors §3.1). */
export const GoalSchema = z.object({
  op: z.enum(["at_least", "at_most", "equals", "true"]),
  value: z.number().nullable(),
  per: z.enum(["day", "week"]),
  times: z.int().nullable(),
});

/** Column value types (domain-anchors §3.1); the one list the store, proxy and tools share. */
export const ColumnTypeSchema = z.enum([
  "number",
  "integer",
  "boolean",
  "scale",
  "duration_min",
  "time_of_day",
]);
/** Which way is better for a column. */
export const DirectionSchema = z.enum(["higher_better", "lower_better", "target", "neutral"]);
/** How a column's values combine into a bucket by default. */
export const DailyAggSchema = z.enum(["sum", "mean", "last", "any"]);
/** Whether a missing day breaks a streak. */
export const MissingPolicySchema = z.enum(["breaks", "neutral"]);

/** The longest group label (issue #25: a short heading such as "Morning" or "Health"). */
export const MAX_GROUP_CHARS = 40;

/**
 * A column's group: a short label under which Today's form and the habit list show it, or absent
 * (null) for none. Optional so the columns stored before groups existed still read.
 */
export const GroupSchema = z.string().min(1).max(MAX_GROUP_CHARS).nullable().optional();

/** A column's metadata as stored and reported (list_columns adds its date fields). */
export const ColumnMetadata = z.object({
  key: z.string(),
  label: z.string(),
  type: ColumnTypeSchema,
  unit: z.string().nullable(),
  scale_min: z.number().nullable(),
  scale_max: z.number().nullable(),
  direction: DirectionSchema,
  daily_agg: DailyAggSchema,
  goal: GoalSchema.nullable(),
  missing_policy: MissingPolicySchema,
  archived: z.boolean(),
  group: GroupSchema,
});

/** How a column's values are typed (domain-anchors §3.1). */
export type ColumnType = z.infer<typeof ColumnTypeSchema>;

/** Which way is "better" for a column. */
export type Direction = z.infer<typeof DirectionSchema>;

/** How several values in one bucket combine by default. */
export type DailyAgg = z.infer<typeof DailyAggSchema>;

/** Whether a day with no entry breaks a streak (habits) or is ignored (spot measurements). */
export type MissingPolicy = z.infer<typeof MissingPolicySchema>;

/** A column's goal: `{op, value?, per, times?}` (domain-anchors §3.1). */
export type Goal = z.infer<typeof GoalSchema>;

/**
 * Column metadata, exactly as `list_columns` reports it (minus the derived date fields). Derived
 * from the zod schema the store validates writes with, so the two cannot disagree.
 */
export type Column = z.infer<typeof ColumnMetadata>;

/**
 * The 1–5 mood scale as one column: the Mood starter template (web app) and the column a Daylio
 * import creates are this one definition, so an imported mood lands where a logged one does.
 */
export const MOOD_SCALE_COLUMN = {
  key: "mood",
  label: "Mood",
  type: "scale",
  unit: null,
  direction: "higher_better",
  goal: null,
  missing_policy: "neutral",
} as const;
