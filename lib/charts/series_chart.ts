/**
 * The geometry of a History chart, computed without a DOM (npm `d3-scale` for the scales and
 * ticks, `d3-shape` for the line path; webapp-anchors §6). A component only has to draw what this
 * returns. Everything is in the coordinates of a fixed `viewBox`, so the SVG scales to any width.
 *
 * Bars or a line: a column whose `daily_agg` is `sum` says its values add up over a day (steps,
 * glasses, litres, minutes of meditation: `get_aggregates` sums them), so a day is a total, drawn
 * as a bar from zero; yes/no columns are bars too (a day done or not). Every other column holds a
 * level measured once a day (sleep hours, mood 1–5, weight, resting heart rate, a time of day), so
 * it is a line whose y-axis need not start at zero. Missing and skipped days are gaps, never zero.
 */

// @ts-types="@types/d3-scale"
import { scaleBand, scaleLinear, scaleUtc } from "d3-scale";
// @ts-types="@types/d3-shape"
import { line } from "d3-shape";
import { type DayNumber, formatDay } from "../foundation/dates.ts";
import type { Column, DayValue } from "../record/types.ts";
import { type DayRange, type DayState, dayState, numericValue } from "../analytics/common.ts";
import { aggregate } from "../analytics/aggregates.ts";
import { bucketRangesOf, type ChartBucket, chartBucket } from "./buckets.ts";
import { circularMean, clockDifference, isClock } from "../analytics/circular.ts";
import { clockTime, type DateWords, plainNumber } from "./format.ts";
import { type ChartSummary, summaryOf } from "./summary.ts";

/** Bars for totals and yes/no, a line for measured levels (see the module comment). */
export type ChartKind = "line" | "bars";

/** The chart kind of a column. */
export function chartKind(column: Column): ChartKind {
  return column.type === "boolean" || column.daily_agg === "sum" ? "bars" : "line";
}

/** The viewBox and the plot area inside it. */
export const CHART_BOX = { width: 640, height: 220, top: 18, right: 8, bottom: 26, left: 8 };

/**
 * One mark of the window, oldest first: a day, or a week or month (`day` its first day, `end` its
 * last) whose value is the analytics' aggregate of its logged days.
 */
export interface ChartDay {
  day: DayNumber;
  end: DayNumber;
  value: number | null;
  state: DayState;
}

/** A positioned mark. */
export interface ChartMark {
  day: DayNumber;
  x: number;
  y: number;
  state: DayState;
}

/** A bar (`height` ≥ 2 so a logged zero differs from a day with no entry). */
export interface ChartBar extends ChartMark {
  width: number;
  height: number;
}

/** An axis tick. */
export interface Tick {
  at: number;
  label: string;
}

/** Everything a chart component draws. */
export interface SeriesChart {
  kind: ChartKind;
  /** What one mark stands for (issue #25: windows over 90 days are weeks or months). */
  bucket: ChartBucket;
  days: ChartDay[];
  /** Line charts: the path, with gaps where days have no value; `null` with nothing logged. */
  linePath: string | null;
  /** Line charts: a dot per logged day (30/90 days) or per isolated day (longer windows). */
  dots: ChartMark[];
  bars: ChartBar[];
  /** The goal value as a horizontal line, and the band on its "met" side. */
  goal: { y: number; band: { y: number; height: number } | null; label: string } | null;
  xTicks: Tick[];
  yTicks: Tick[];
  yDomain: [number, number];
  summary: ChartSummary;
}

const DAY_MS = 86_400_000;

function yDomainOf(column: Column, values: number[], kind: ChartKind): [number, number] {
  if (column.type === "boolean") return [0, 1];
  if (column.type === "scale" && column.scale_min !== null && column.scale_max !== null) {
    return [column.scale_min, column.scale_max];
  }
  const goal = column.goal?.op !== "true" ? column.goal?.value ?? null : null;
  const all = goal === null ? values : [...values, goal];
  if (all.length === 0) return [0, 1];
  let lo = kind === "bars" ? Math.min(0, ...all) : Math.min(...all);
  let hi = Math.max(...all);
  if (column.type === "time_of_day") {
    // Whole hours, at least two of them, so the axis reads as clock times; the times are
    // unwrapped (`onTheClock`), so the axis may run past midnight (22:00 … 02:00).
    lo = Math.floor(lo / 60) * 60 - 60;
    hi = Math.ceil(hi / 60) * 60 + 60;
    return [lo, hi];
  }
  if (lo === hi) [lo, hi] = kind === "bars" ? [0, Math.max(1, hi)] : [lo - 1, hi + 1];
  const nice = scaleLinear().domain([lo, hi]).nice(4).domain();
  return [nice[0], nice[1]];
}

function yTicksOf(column: Column, domain: [number, number], bucket: ChartBucket): number[] {
  if (column.type === "boolean") return bucket === "day" ? [0, 1] : [0, 0.5, 1];
  if (column.type === "time_of_day") {
    const hours = (domain[1] - domain[0]) / 60;
    const step = 60 * Math.max(1, Math.ceil(hours / 4));
    const out: number[] = [];
    for (let t = domain[0]; t <= domain[1]; t += step) out.push(t);
    return out;
  }
  const ticks = scaleLinear().domain(domain).ticks(4);
  return column.type === "scale" || column.type === "integer"
    ? ticks.filter(Number.isInteger)
    : ticks;
}

function yLabel(column: Column, value: number, bucket: ChartBucket): string {
  // a week's or month's mark of a yes/no column is its share of yes days
  if (column.type === "boolean" && bucket !== "day") return `${Math.round(value * 100)}%`;
  if (column.type === "boolean") return value === 1 ? "yes" : "no";
  if (column.type === "time_of_day") return clockTime(value);
  return plainNumber(value);
}

function xTicksOf(days: number, start: DayNumber, end: DayNumber): DayNumber[] {
  const x = scaleUtc().domain([new Date(start * DAY_MS), new Date(end * DAY_MS)]);
  return x.ticks(days > 120 ? 6 : 4).map((d) => Math.round(d.getTime() / DAY_MS));
}

/** A day's date up to 120 days, else its month, January with its year ("Jan 2026"). */
function xLabel(days: number, day: DayNumber, dates: DateWords): string {
  const iso = formatDay(day);
  if (days <= 120) return dates.tick(iso, "day");
  return dates.tick(iso, iso.slice(5, 7) === "01" ? "monthYear" : "month");
}

function goalMark(
  column: Column,
  y: (v: number) => number,
  label: string | null,
): SeriesChart["goal"] {
  const goal = column.goal;
  if (!goal || goal.op === "true" || goal.value === null || label === null) return null;
  const gy = y(goal.value);
  const { top, height, bottom } = CHART_BOX;
  const band = goal.op === "at_least"
    ? { y: top, height: gy - top }
    : goal.op === "at_most"
    ? { y: gy, height: height - bottom - gy }
    : null;
  return { y: gy, band, label };
}

/** Whether the days either side of `i` have no value (a lone point the line cannot show). */
function isolated(days: ChartDay[], i: number): boolean {
  return (i === 0 || days[i - 1].value === null) &&
    (i === days.length - 1 || days[i + 1].value === null);
}

/**
 * A time-of-day chart's values unwrapped around their circular mean (analytics/circular.ts), so a
 * 00:30 bedtime is drawn just above 23:30 rather than at the bottom of the day, and the goal moved
 * next to them; other columns unchanged.
 */
function onTheClock(column: Column, days: ChartDay[]): Column {
  if (!isClock(column)) return column;
  const logged = days.filter((d) => d.value !== null).map((d) => d.value!);
  const center = circularMean(logged);
  if (Number.isNaN(center)) return column;
  for (const d of days) if (d.value !== null) d.value = center + clockDifference(d.value, center);
  const goal = column.goal;
  if (!goal || goal.value === null) return column;
  return { ...column, goal: { ...goal, value: center + clockDifference(goal.value, center) } };
}

/** The window a chart draws, and how it is bucketed. */
export interface ChartWindow {
  today: DayNumber;
  days: number;
  /** "all time (since 3 March 2024)"; default "last N days". */
  words?: string;
  /** The member's date style (components/dates.ts `dateWords`): the ticks and the summary. */
  dates: DateWords;
  /** Default: `chartBucket(days)`. */
  bucket?: ChartBucket;
  /** The member's first day of the week, 0 = Sunday … 6 = Saturday (default 1, Monday). */
  weekStartsOn?: number;
}

/**
 * The marks of `range`: each day's value and state (as the streak analytics classify it), or per
 * week or month the analytics' `aggregate` of the logged days — their mean (a sum column's mean is
 * its total per logged day, so the daily goal still applies) or, for yes/no, the share of yes days.
 */
function marksOf(
  column: Column,
  series: ReadonlyMap<DayNumber, DayValue>,
  range: DayRange,
  window: { bucket: ChartBucket; weekStartsOn: number },
): ChartDay[] {
  if (window.bucket === "day") {
    const days: ChartDay[] = [];
    for (let d = range.start; d <= range.end; d++) {
      const raw = series.get(d);
      days.push({ day: d, end: d, value: numericValue(raw), state: dayState(column, raw) });
    }
    return days;
  }
  const agg = column.type === "boolean" ? "rate" : "mean";
  return bucketRangesOf(range, window.bucket, window.weekStartsOn).map((r) => {
    const { value } = aggregate({ column, series, range: r, agg });
    const state: DayState = value === null
      ? "missing"
      : column.type === "boolean"
      ? "qualifies"
      : dayState(column, value);
    return { day: r.start, end: r.end, value, state };
  });
}

/** The bars of a bar chart, from zero (a logged zero is a 2-unit stub on the baseline). */
function barsOf(
  logged: ChartDay[],
  x: (d: DayNumber) => number | undefined,
  width: number,
  y: (v: number) => number,
  yDomain: [number, number],
): ChartBar[] {
  const base = y(Math.max(yDomain[0], 0));
  return logged.map((d) => {
    const barTop = Math.min(y(d.value!), base - 2);
    const state = d.state;
    return { day: d.day, x: x(d.day)!, y: barTop, width, height: base - barTop, state };
  });
}

/** The x ticks: each at the centre of the mark that holds its day. */
function xTicks(days: ChartDay[], window: ChartWindow, cx: (d: DayNumber) => number): Tick[] {
  const start = days[0].day, end = days[days.length - 1].end;
  const out: Tick[] = [];
  for (const d of xTicksOf(window.days, start, end)) {
    const mark = days.find((m) => m.day <= d && d <= m.end);
    if (mark) out.push({ at: cx(mark.day), label: xLabel(window.days, d, window.dates) });
  }
  return out;
}

/**
 * The chart of `column` over the `days` days ending `today`: its marks (days, weeks or months,
 * `marksOf`), the scales' ticks, the line path or bars, the goal, and the summary numbers of
 * `summaryOf`.
 */
export function buildSeriesChart(
  column: Column,
  series: ReadonlyMap<DayNumber, DayValue>,
  window: ChartWindow,
): SeriesChart {
  const { width, height, top, right, bottom, left } = CHART_BOX;
  const bucket = window.bucket ?? chartBucket(window.days);
  const range = { start: window.today - window.days + 1, end: window.today };
  const days = marksOf(column, series, range, { bucket, weekStartsOn: window.weekStartsOn ?? 1 });
  const kind = chartKind(column);
  const drawn = onTheClock(column, days);
  const logged = days.filter((d) => d.value !== null);
  const yDomain = yDomainOf(drawn, logged.map((d) => d.value!), kind);
  const y = scaleLinear().domain(yDomain).range([height - bottom, top]);
  const x = scaleBand<number>().domain(days.map((d) => d.day)).range([left, width - right])
    .paddingInner(kind === "bars" ? 0.25 : 0);
  const cx = (d: DayNumber) => x(d)! + x.bandwidth() / 2;
  const summary = summaryOf(column, series, window, bucket);

  let linePath: string | null = null, dots: ChartMark[] = [], bars: ChartBar[] = [];
  if (kind === "line") {
    linePath = logged.length === 0 ? null : line<ChartDay>()
      .defined((d) => d.value !== null)
      .x((d) => cx(d.day))
      .y((d) => y(d.value!))(days);
    dots = days
      .filter((d, i) => d.value !== null && (days.length <= 90 || isolated(days, i)))
      .map((d) => ({ day: d.day, x: cx(d.day), y: y(d.value!), state: d.state }));
  } else {
    bars = barsOf(logged, x, Math.max(1, x.bandwidth()), y, yDomain);
  }
  return {
    kind,
    bucket,
    days,
    linePath,
    dots,
    bars,
    goal: goalMark(drawn, y, summary.goal?.words ?? null),
    xTicks: xTicks(days, window, cx),
    yTicks: yTicksOf(column, yDomain, bucket).map((v) => ({
      at: y(v),
      label: yLabel(column, v, bucket),
    })),
    yDomain,
    summary,
  };
}
