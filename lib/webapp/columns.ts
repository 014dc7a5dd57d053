/**
 * What the Columns page offers (`/app/columns`, issue #11 §4): starter templates so a new member
 * logs within a minute, the limits (read from the store's schemas, never restated), a key made
 * from the label, and reading the add/edit form into `createColumn` / `updateColumn` input —
 * with a message beside each field that does not fit.
 */

import { z } from "zod";
import type { Units } from "../accounts/accounts.ts";
import { ColumnCreate, ColumnPatch, MAX_COLUMNS } from "../record/store.ts";
import type { Column, ColumnType, Direction, Goal } from "../record/types.ts";
import { MAX_GROUP_CHARS, MOOD_SCALE_COLUMN } from "../record/columns.ts";

/** The limits the page states. */
export const COLUMN_LIMITS = {
  maxColumns: MAX_COLUMNS,
  labelMax: ColumnCreate.shape.label.maxLength ?? 80,
  unitMax: (ColumnPatch.shape.unit.unwrap().unwrap() as z.ZodString).maxLength ?? 24,
  groupMax: MAX_GROUP_CHARS,
};

/** The member's group labels, in the order their first column comes (the page offers them). */
export function groupNames(columns: readonly Column[]): string[] {
  return [...new Set(columns.flatMap((c) => c.group ? [c.group] : []))];
}

/** A starter column. */
export interface StarterTemplate {
  key: string;
  label: string;
  type: ColumnType;
  unit: string | null;
  direction: Direction;
  goal: Goal | null;
  missing_policy: "breaks" | "neutral";
  /** What it is for, in a few words. */
  blurb: string;
}

const daily = (op: Goal["op"], value: number | null): Goal => ({
  op,
  value,
  per: "day",
  times: null,
});

/** The seven starter columns (issue #11 §4), in the order offered. */
export function starterTemplates(units: Units = "metric"): StarterTemplate[] {
  return [
    {
      key: "sleep_hours",
      label: "Sleep",
      type: "number",
      unit: "h",
      direction: "higher_better",
      goal: daily("at_least", 7),
      missing_policy: "neutral",
      blurb: "Hours slept, goal 7",
    },
    {
      key: "steps",
      label: "Steps",
      type: "integer",
      unit: "steps",
      direction: "higher_better",
      goal: daily("at_least", 8000),
      missing_policy: "neutral",
      blurb: "Steps walked, goal 8,000",
    },
    { ...MOOD_SCALE_COLUMN, blurb: "How the day felt, 1–5" },
    {
      key: "meditation_min",
      label: "Meditation",
      type: "duration_min",
      unit: "min",
      direction: "higher_better",
      goal: daily("at_least", 10),
      missing_policy: "breaks",
      blurb: "Minutes, goal 10 a day",
    },
    {
      key: "water_glasses",
      label: "Water",
      type: "integer",
      unit: "glasses",
      direction: "higher_better",
      goal: daily("at_least", 8),
      missing_policy: "neutral",
      blurb: "Glasses, goal 8",
    },
    {
      key: "weight",
      label: "Weight",
      type: "number",
      unit: units === "imperial" ? "lb" : "kg",
      direction: "neutral",
      goal: null,
      missing_policy: "neutral",
      blurb: "A spot measurement",
    },
    {
      key: "workout",
      label: "Workout",
      type: "boolean",
      unit: null,
      direction: "higher_better",
      goal: { op: "true", value: null, per: "week", times: 3 },
      missing_policy: "breaks",
      blurb: "Done or not, 3 times a week",
    },
  ];
}

/** The `createColumn` input of a template. */
export function templateInput(t: StarterTemplate): z.input<typeof ColumnCreate> {
  const { blurb: _blurb, ...input } = t;
  return input;
}

/** A column key from a label: `Deep work (h)` → `deep_work_h`, unique among `taken`. */
export function columnKeyFor(label: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  let base = label.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(
    /[^a-z0-9]+/g,
    "_",
  )
    .replace(/^_+|_+$/g, "").slice(0, 34);
  if (!/^[a-z]/.test(base)) base = `c_${base}`.replace(/_+$/, "");
  let key = base;
  for (let n = 2; used.has(key); n++) key = `${base}_${n}`;
  return key;
}

/** Column types as the form names them. */
export const TYPE_CHOICES: { value: ColumnType; label: string }[] = [
  { value: "number", label: "Number (e.g. 7.5 hours)" },
  { value: "integer", label: "Whole number (e.g. steps)" },
  { value: "scale", label: "Scale (e.g. mood 1–5)" },
  { value: "boolean", label: "Yes / no" },
  { value: "duration_min", label: "Minutes" },
  { value: "time_of_day", label: "Time of day" },
];

/** Directions as the form names them. */
export const DIRECTION_CHOICES: { value: Direction; label: string }[] = [
  { value: "higher_better", label: "Higher is better" },
  { value: "lower_better", label: "Lower is better" },
  { value: "target", label: "Closer to the goal is better" },
  { value: "neutral", label: "Neither" },
];

/**
 * Goal kinds as the form names them (`none` = no goal). The add form starts at `auto`: a yes/no
 * column gets the goal "Done" every day, any other type no goal (issue #20: a yes/no column left
 * at the form's default had no goal, and its "no" days used to count as done).
 */
export const GOAL_CHOICES = [
  { value: "auto", label: "“Done” for yes/no, else none" },
  { value: "none", label: "No goal" },
  { value: "at_least", label: "At least" },
  { value: "at_most", label: "At most" },
  { value: "equals", label: "Exactly" },
  { value: "true", label: "Done (yes/no columns)" },
];

/** The outcome of reading an add or edit form. */
export type ColumnFormResult =
  | { ok: true; input: Record<string, unknown> }
  | { ok: false; errors: Record<string, string> };

function numberOrNull(text: string | undefined): number | null | "bad" {
  const t = (text ?? "").trim().replace(/^([+-]?\d*),(\d+)$/, "$1.$2");
  if (t === "") return null;
  const n = Number(t);
  return /^[+-]?(\d+\.?\d*|\.\d+)$/.test(t) && Number.isFinite(n) ? n : "bad";
}

/** The goal a yes/no column gets by default: "Done", counted every day. */
const DONE_DAILY: Goal = { op: "true", value: null, per: "day", times: null };

/** The goal fields → a `Goal`, `null`, or messages; `auto` (the default) depends on `type`. */
function readGoal(
  form: Record<string, string>,
  type: ColumnType | undefined,
  errors: Record<string, string>,
): Goal | null {
  const op = form.goal_op ?? "auto";
  if (op === "auto") return type === "boolean" ? { ...DONE_DAILY } : null;
  if (op === "none") return null;
  if (!["at_least", "at_most", "equals", "true"].includes(op)) {
    errors.goal_op = "Choose a goal from the list.";
    return null;
  }
  const value = op === "true" ? null : numberOrNull(form.goal_value);
  if (value === "bad") errors.goal_value = "Not a number. Enter digits, for example 8000.";
  else if (op !== "true" && value === null) errors.goal_value = "Enter the goal's number.";
  const per = form.goal_per === "week" ? "week" : "day";
  let times: number | null = null;
  if (per === "week") {
    const t = numberOrNull(form.goal_times);
    if (t === "bad" || t === null || !Number.isInteger(t) || t < 1 || t > 7) {
      errors.goal_times = "Enter how many days a week, 1 to 7.";
    } else times = t;
  }
  return { op: op as Goal["op"], value: value === "bad" ? null : value, per, times };
}

/**
 * The goal kind must fit the column's type. The store refuses a misfit too, but in its API words
 * ("Goal op …") and not beside a field: the page says it here, beside "Kind".
 */
function checkGoalFits(type: ColumnType | undefined, goal: Goal | null, errors: ColumnErrors) {
  if (!type || !goal || errors.goal_op) return;
  if (type === "boolean" && goal.op !== "true") {
    errors.goal_op = "A yes/no column's goal is “Done” (or choose No goal).";
  } else if (type !== "boolean" && goal.op === "true") {
    errors.goal_op = "“Done” is for yes/no columns: choose At least, At most or Exactly.";
  }
}

type ColumnErrors = Record<string, string>;

/** Options of `readColumnForm`. */
export interface ColumnFormOptions {
  creating: boolean;
  takenKeys: string[];
  /** The labels of the member's other columns: a second "Sleep" is refused (Today names by label). */
  takenLabels?: string[];
  /** Editing: the column's type (the form does not send it). */
  type?: ColumnType;
}

/**
 * Reads the add form (`creating`, with label/type/scale) or the edit form into the input of
 * `createColumn` / `updateColumn`; schema failures come back as messages by field name.
 */
export function readColumnForm(
  form: Record<string, string>,
  opts: ColumnFormOptions,
): ColumnFormResult {
  const errors: ColumnErrors = {};
  const label = (form.label ?? "").trim();
  const same = (opts.takenLabels ?? []).find((l) => l.toLowerCase() === label.toLowerCase());
  if (label === "") errors.label = "Enter a label.";
  else if (label.length > COLUMN_LIMITS.labelMax) {
    errors.label = `At most ${COLUMN_LIMITS.labelMax} characters (this one has ${label.length}).`;
  } else if (same !== undefined) {
    errors.label = `You already have a column called “${same}”: choose another label.`;
  }
  const unit = (form.unit ?? "").trim();
  if (unit.length > COLUMN_LIMITS.unitMax) {
    errors.unit = `At most ${COLUMN_LIMITS.unitMax} characters.`;
  }
  // A blank group is no group: the store keeps none, and an edit takes the column out of its group.
  const group = (form.group ?? "").trim();
  if (group.length > COLUMN_LIMITS.groupMax) {
    errors.group = `At most ${COLUMN_LIMITS.groupMax} characters (this one has ${group.length}).`;
  }
  const type = opts.creating ? TYPE_CHOICES.find((t) => t.value === form.type)?.value : opts.type;
  const goal = readGoal(form, type, errors);
  const input: Record<string, unknown> = {
    label,
    unit: unit === "" ? null : unit,
    direction: DIRECTION_CHOICES.some((d) => d.value === form.direction)
      ? form.direction
      : "neutral",
    goal,
    missing_policy: form.missing_breaks ? "breaks" : "neutral",
    group,
  };
  if (opts.creating) {
    if (!type) errors.type = "Choose a type from the list.";
    input.type = type;
    input.key = columnKeyFor(label || "column", opts.takenKeys);
    if (type === "scale") {
      const lo = numberOrNull(form.scale_min);
      const hi = numberOrNull(form.scale_max);
      if (lo === "bad" || (lo !== null && !Number.isInteger(lo))) {
        errors.scale_min = "Enter a whole number.";
      }
      if (hi === "bad" || (hi !== null && !Number.isInteger(hi))) {
        errors.scale_max = "Enter a whole number.";
      }
      input.scale_min = lo === "bad" ? null : lo ?? 1;
      input.scale_max = hi === "bad" ? null : hi ?? 5;
      const [from, to] = [input.scale_min as number | null, input.scale_max as number | null];
      if (from !== null && to !== null && !errors.scale_min && !errors.scale_max && from >= to) {
        errors.scale_max = `Enter a number more than “Scale from” (${from}).`;
      }
    }
  }
  checkGoalFits(type, goal, errors);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const schema = opts.creating ? ColumnCreate : ColumnPatch;
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? "_form");
      errors[field.startsWith("goal") ? "goal_value" : field] ??= issue.message;
    }
    return { ok: false, errors };
  }
  return { ok: true, input };
}

/** The form values of a column, to pre-fill its edit form. */
export function formOfColumn(c: Column): Record<string, string> {
  return {
    label: c.label,
    unit: c.unit ?? "",
    direction: c.direction,
    goal_op: c.goal?.op ?? "none",
    goal_value: c.goal?.value === null || c.goal?.value === undefined ? "" : String(c.goal.value),
    goal_per: c.goal?.per ?? "day",
    goal_times: c.goal?.times ? String(c.goal.times) : "",
    missing_breaks: c.missing_policy === "breaks" ? "on" : "",
    group: c.group ?? "",
  };
}

/** A button of a column's card on the Columns page that a redirect may return focus to. */
export type ColumnControl = "up" | "down" | "archive" | "restore" | "delete";

/**
 * The id of a column's card (`col-<key>`) or of one of its buttons (`col-<key>-up`): the Columns
 * page's actions redirect to it (issue #25, defect 6), so the page opens where the member was and
 * a focusable target takes the focus (HTML "scroll to the fragment" runs the focusing steps).
 */
export function columnAnchor(key: string, control?: ColumnControl): string {
  return control ? `col-${key}-${control}` : `col-${key}`;
}

/**
 * Where a move returns: the arrow just pressed while it can still move the column, so moving it
 * three places is Enter three times; at the end of the list that arrow is disabled (and takes no
 * focus), so the other one; the card when the column is alone.
 */
export function moveAnchor(columns: Column[], key: string, direction: "up" | "down"): string {
  const active = columns.filter((c) => !c.archived).map((c) => c.key);
  const i = active.indexOf(key);
  if (active.length < 2 || i < 0) return columnAnchor(key);
  const stuck = direction === "up" ? i === 0 : i === active.length - 1;
  return columnAnchor(key, stuck ? (direction === "up" ? "down" : "up") : direction);
}
