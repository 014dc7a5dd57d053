/**
 * "The numbers behind this" in the member's words (issue #20 item 13): a finding's key numbers
 * are addressed by their path in the tool's result (`goals.3.met_days`), which is what an agent
 * replays; the Coach page names each one as a sentence would ("Days the goal was met: 0 of 6")
 * and quotes a level in its column's unit or scale ("4 of 5"). The raw path and the tool call
 * stay on the page for anyone who checks them.
 */

import type { CoachInsight, Column } from "../record/types.ts";
import { formatAmount, plainNumber } from "../charts/format.ts";
import { capitalise, phraseOf, plural } from "../analytics/_wording.ts";
import { isClock } from "../analytics/circular.ts";

/** One line of the evidence list. */
export interface EvidenceLine {
  name: string;
  value: string;
  /** The key-number paths the line shows, as the tool call's result names them. */
  paths: string[];
}

/** What a path reads as; `level` values are quoted in the column's unit or scale. */
interface Word {
  name: string | ((ctx: Context) => string);
  /** How the value reads, when not as a plain number or word. */
  value?: (value: unknown, ctx: Context) => string;
}

interface Context {
  tool: string;
  column: Column | null;
  factor: Column | null;
}

/** Paths (array indexes removed) that read as "x of y", and the line they become. */
const PAIRS: [done: string, of: string, name: string][] = [
  ["goals.met_days", "goals.eligible_days", "Days the goal was met"],
  ["goals.weekly.done", "goals.weekly.target", "Days done of the week's goal"],
  ["current_week.done", "current_week.target", "Done this week so far, of the goal"],
];

const WORDS: Record<string, Word> = {
  "current.length": { name: "Current streak", value: runLength },
  "current.start": { name: "Streak started" },
  "status": { name: "Status" },
  "longest.length": { name: "Longest streak", value: runLength },
  "is_record": { name: "Longest streak yet" },
  "current_week.remaining_days": { name: "Days left this week" },
  "best_days.date": { name: "Date of the best day" },
  "best_days.value": { name: "Best day", value: level },
  "n": { name: (c) => c.tool === "get_weekday_pattern" ? "Days used" : "Days logged" },
  "anomalies.value": { name: "Value that day", value: level },
  "anomalies.baseline_median": { name: "Usual (median of the 28 days before)", value: level },
  "columns.days_since_last": { name: "Days since last logged" },
  "columns.last_logged": { name: "Last logged" },
  "overall.days_with_any_entry": { name: "Days with anything logged" },
  "r": { name: "Correlation (r)" },
  "n_pairs": { name: "Days with both logged" },
  "p_value": { name: "p-value of this test on its own", value: pValue },
  "lag_days": { name: "Days between the two" },
  "with.mean": { name: (c) => `Average on days with ${factorWord(c)}`, value: level },
  "without.mean": { name: "Average on the other days", value: level },
  "with.n": { name: (c) => `Days with ${factorWord(c)}` },
  "without.n": { name: "Other days" },
  "current_mean": { name: "Average, recent days", value: level },
  "previous_mean": { name: "Average, the days before", value: level },
  "delta": { name: "Change", value: change },
  "verdict": { name: "Reading", value: (v) => VERDICTS[String(v)] ?? plain(v) },
  "highest_weekday": { name: "Highest on" },
  "lowest_weekday": { name: "Lowest on" },
  "eta_squared": { name: "Share of the ups and downs that follows the weekday (η²)" },
  "a.mean": { name: "Average, the last four weeks", value: level },
  "b.mean": { name: "Average, the same weeks a year ago", value: level },
  "effect_size_g": { name: "Effect size (Hedges' g)" },
  "logging.note": { name: "How often it was logged" },
  "adjusted_difference": {
    name: "Difference with your weekday rhythm and trend taken out",
    value: change,
  },
};

/** `compare_periods` verdicts are about A (the recent weeks) against B (a year ago). */
const VERDICTS: Record<string, string> = {
  a_better: "better now",
  a_worse: "worse now",
  a_higher: "higher now",
  a_lower: "lower now",
  no_clear_difference: "no clear difference",
  insufficient_data: "too little data",
};

/** A level of the column in its unit or scale ("47.8 min", "4 of 5", "23:15"). */
function level(value: unknown, ctx: Context): string {
  return ctx.column && typeof value === "number" ? formatAmount(ctx.column, value) : plain(value);
}

/** A signed difference in the column's unit (minutes for a time of day, points on a scale). */
function change(value: unknown, ctx: Context): string {
  if (typeof value !== "number") return plain(value);
  const c = ctx.column;
  const unit = !c
    ? ""
    : isClock(c)
    ? " min"
    : c.unit
    ? ` ${c.unit}`
    : c.type === "scale"
    ? " points"
    : "";
  return `${value > 0 ? "+" : ""}${plainNumber(value, 2)}${unit}`;
}

/** A streak's length in days, or weeks for a weekly goal. */
function runLength(value: unknown, ctx: Context): string {
  if (typeof value !== "number") return plain(value);
  return plural(value, ctx.column?.goal?.per === "week" ? "week" : "day");
}

/** A p-value as the tools report it: three decimals, "< 0.001" below. */
function pValue(value: unknown): string {
  return typeof value === "number" && value < 0.001 ? "< 0.001" : plain(value);
}

const factorWord = (c: Context) => (c.factor ? phraseOf(c.factor) : "the factor");

/** `goals.3.met_days` → `goals.met_days`: the name does not depend on the row. */
const shapeOf = (path: string) => path.split(".").filter((p) => !/^\d+$/.test(p)).join(".");

function plain(value: unknown): string {
  if (typeof value === "number") return plainNumber(value, 3);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string") return value.replaceAll("_", " ");
  return value === null ? "none" : JSON.stringify(value);
}

/** The columns the evidence call is about: the one whose levels it quotes, and a factor. */
function contextOf(insight: CoachInsight, columns: Column[]): Context {
  const args = insight.evidence.arguments as Record<string, unknown>;
  const find = (key: unknown) => columns.find((c) => c.key === key) ?? null;
  return {
    tool: insight.evidence.tool,
    column: find(args.outcome ?? args.metric ?? insight.metrics.at(-1)),
    factor: find(args.factor),
  };
}

/** The key numbers of `insight` as the Coach page lists them, in the order the coach wrote. */
export function evidenceLines(insight: CoachInsight, columns: Column[]): EvidenceLine[] {
  const ctx = contextOf(insight, columns);
  const entries = Object.entries(insight.evidence.key_numbers ?? {});
  const byShape = new Map(entries.map(([path, value]) => [shapeOf(path), value]));
  const paired = new Set<string>();
  const lines: EvidenceLine[] = [];
  for (const [path, value] of entries) {
    const shape = shapeOf(path);
    if (paired.has(shape)) continue;
    const pair = PAIRS.find(([done, of]) => done === shape && byShape.has(of));
    if (pair) {
      paired.add(pair[1]);
      const of = entries.find(([p]) => shapeOf(p) === pair[1])![0];
      lines.push({
        name: pair[2],
        value: `${plain(value)} of ${plain(byShape.get(pair[1]))}`,
        paths: [path, of],
      });
      continue;
    }
    const word = WORDS[shape];
    const name = !word
      ? capitalise(shape.replaceAll(/[._]/g, " "))
      : typeof word.name === "string"
      ? word.name
      : word.name(ctx);
    const shown = word?.value ? word.value(value, ctx) : plain(value);
    lines.push({ name, value: shown, paths: [path] });
  }
  return lines;
}
