/**
 * Seeded members built like real logs, for simulations of the coach and the inferential tools
 * (issue #20; reference/statistics.md §7). Not used at run time.
 *
 * What makes them "real": every column is AR(1) with φ 0.5 (persistent days), 20 % of days are not
 * logged at all and 3 % of single values are missing, each column has its own weekday profile
 * (SD 0.4) and its own slow trend (a drift of SD 0.5 over the period), and the columns are of the
 * starter kinds — hours, counts, a 1–5 scale, yes/no habits. Every option can be switched off, so a
 * test can also build the "pure noise" member (white, complete, no rhythm).
 *
 * Planted effects use fixed keys: `x` → `y` for a relationship (y on day d + lag follows x on
 * day d with correlation r), and the yes/no `f` → `y` for a factor (y is g SDs higher on f days).
 */

import type { DayNumber } from "../foundation/dates.ts";
import type { Column, DayValue, MemberRecord } from "../record/types.ts";
import { day, seededRandom, testColumn, testRecord } from "./_test_record.ts";

/** How a simulated member is built; the defaults are the real-log set of issue #20. */
export interface RealLogOptions {
  seed: number;
  days: number;
  /** Columns in all, including the planted ones (default 10). */
  columns?: number;
  /** AR(1) coefficient of every column's noise (default 0.5). */
  phi?: number;
  /** Share of days with nothing logged (default 0.2). */
  missingDays?: number;
  /** Share of single values missing on logged days (default 0.03). */
  missingValues?: number;
  /** Each column's own weekday profile, SD 0.4 of its noise (default true). */
  weekday?: boolean;
  /** Each column's own slow linear drift, SD 0.5 over the whole period (default true). */
  trend?: boolean;
  /** A relationship: y follows x at `lag` days with correlation r. */
  link?: { r: number; lag: number };
  /** A factor: y is `g` noise SDs higher on days the yes/no column f is done (share `rate`). */
  factor?: { g: number; rate: number; weekendConfounded?: boolean };
  /** y is logged only on its better days (missing not at random): keep a day with this chance when y is below its median. */
  loggedOnGoodDays?: number;
  /** The member's today (default 2026-03-18). */
  today?: string;
}

/** A simulated member and what was planted in it. */
export interface RealLogMember {
  record: MemberRecord;
  planted: {
    link?: { r: number; lag: number };
    factor?: { g: number; rate: number };
    /** Each column's planted drift over the whole period, in noise SDs (0 when switched off). */
    drift: Record<string, number>;
  };
}

/** The kinds of the unplanted columns, in turn: starter kinds of the web app. */
const FILLER_KINDS: Array<Partial<Column>> = [
  { type: "number", unit: "h", label: "Sleep" },
  { type: "integer", unit: "steps", label: "Steps", daily_agg: "sum" },
  { type: "scale", scale_min: 1, scale_max: 5, label: "Mood" },
  { type: "scale", scale_min: 1, scale_max: 5, label: "Energy" },
  { type: "number", unit: "l", label: "Water" },
  { type: "integer", label: "Coffee", daily_agg: "sum" },
  { type: "duration_min", unit: "min", label: "Reading", daily_agg: "sum" },
  { type: "scale", scale_min: 1, scale_max: 5, label: "Stress" },
  { type: "number", unit: "kg", label: "Weight" },
  { type: "boolean", label: "Stretching" },
];

/** Seeded uniform and standard-normal draws. */
export function simRng(seed: number): { uniform: () => number; normal: () => number } {
  const uniform = seededRandom(seed);
  const normal = () => {
    const u = Math.max(uniform(), 1e-12), v = uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  return { uniform, normal };
}

type Rng = ReturnType<typeof simRng>;

/** Unit-variance AR(1) noise of length n. */
function ar1(r: Rng, n: number, phi: number): number[] {
  const out = [r.normal()];
  for (let i = 1; i < n; i++) out.push(phi * out[i - 1] + Math.sqrt(1 - phi * phi) * r.normal());
  return out;
}

/** A member built like a real log (see the module comment). */
export function realLogMember(o: RealLogOptions): RealLogMember {
  const r = simRng(o.seed);
  const n = o.days, phi = o.phi ?? 0.5, width = Math.max(o.columns ?? 10, 3);
  const today = day(o.today ?? "2026-03-18"), first = today - n + 1;
  const latent: number[][] = [];
  for (let c = 0; c < width; c++) latent.push(ar1(r, n, phi));
  const weekdayOf = (i: number) => (first + i) % 7;
  const factorDays = plantFactor(r, { o, n, weekdayOf });
  if (o.link) plantLink(latent[0], latent[1], o.link);
  const rhythm = latent.map(() => rhythmOf(r, o));
  const signal = latent.map((z, c) =>
    z.map((v, i) =>
      v + rhythm[c].profile[weekdayOf(i)] + rhythm[c].drift * (i / Math.max(n - 1, 1) - 0.5) +
      (c === 1 && factorDays[i] ? o.factor!.g : 0)
    )
  );
  const columns = columnsOf(width, Boolean(o.factor));
  const loggedDay = Array.from({ length: n }, () => r.uniform() >= (o.missingDays ?? 0.2));
  const median = [...signal[1]].sort((a, b) => a - b)[Math.floor(n / 2)];
  const values: Record<string, Map<DayNumber, DayValue>> = {};
  columns.forEach((col, c) => {
    const out = new Map<DayNumber, DayValue>();
    for (let i = 0; i < n; i++) {
      if (!loggedDay[i] || r.uniform() < (o.missingValues ?? 0.03)) continue;
      if (c === 1 && o.loggedOnGoodDays !== undefined && signal[1][i] < median) {
        if (r.uniform() >= o.loggedOnGoodDays) continue;
      }
      out.set(first + i, valueOf(col, c === 2 && o.factor ? factorDays[i] : signal[c][i]));
    }
    values[col.key] = out;
  });
  const record = testRecord({ today: o.today, columns, values });
  const drift = Object.fromEntries(columns.map((col, c) => [col.key, rhythm[c].drift]));
  return { record, planted: { link: o.link, factor: o.factor, drift } };
}

/** The weekday profile and drift of one column (zero when switched off). */
function rhythmOf(r: Rng, o: RealLogOptions): { profile: number[]; drift: number } {
  const profile = Array.from({ length: 7 }, () => (o.weekday ?? true) ? 0.4 * r.normal() : 0);
  return { profile, drift: (o.trend ?? true) ? 0.5 * r.normal() : 0 };
}

/** Makes y (from day lag on) correlate r with x `lag` days earlier, keeping unit variance. */
function plantLink(x: number[], y: number[], link: { r: number; lag: number }): void {
  for (let i = y.length - 1; i >= link.lag; i--) {
    y[i] = link.r * x[i - link.lag] + Math.sqrt(1 - link.r * link.r) * y[i];
  }
}

/** The days the factor f is done; weekend-confounded factors happen mostly on Fri–Sun. */
function plantFactor(
  r: Rng,
  { o, n, weekdayOf }: { o: RealLogOptions; n: number; weekdayOf: (i: number) => number },
): boolean[] {
  if (!o.factor) return new Array(n).fill(false);
  const { rate, weekendConfounded } = o.factor;
  return Array.from({ length: n }, (_, i) => {
    // day 0 (1970-01-01) was a Thursday, so weekday indexes 1–3 are Fri, Sat, Sun
    const weekend = [1, 2, 3].includes(weekdayOf(i));
    const p = weekendConfounded ? (weekend ? Math.min(1, rate * 2) : rate / 3) : rate;
    return r.uniform() < p;
  });
}

/** The columns: x, y, then f when a factor is planted, then the starter kinds in turn. */
function columnsOf(width: number, withFactor: boolean): Column[] {
  const columns = [
    testColumn("x", { label: "Exercise minutes", unit: "min" }),
    testColumn("y", { label: "Sleep quality", unit: "points" }),
  ];
  if (withFactor) columns.push(testColumn("f", { label: "Workout", type: "boolean" }));
  for (let c = columns.length; c < width; c++) {
    const kind = FILLER_KINDS[(c - 2) % FILLER_KINDS.length];
    columns.push(testColumn(`c${c}`, { ...kind, label: `${kind.label} ${c}` }));
  }
  return columns;
}

/** A latent value (or a yes/no) in the column's own kind and rounding. */
function valueOf(col: Column, z: number | boolean): DayValue {
  if (typeof z === "boolean") return z;
  switch (col.type) {
    case "boolean":
      return z > 0.3;
    case "scale":
      return Math.min(5, Math.max(1, Math.round(3 + z)));
    case "integer":
      return Math.max(0, Math.round(col.unit === "steps" ? 8000 + 2500 * z : 3 + 1.5 * z));
    case "duration_min":
      return Math.max(0, Math.round(30 + 15 * z));
    default:
      return Math.round((col.unit === "h" ? 7 + 0.8 * z : 10 + z) * 100) / 100;
  }
}
