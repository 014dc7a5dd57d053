/**
 * A History chart (issues #11 §3, #25): the marks are an `<svg role="img">` named by its summary (label,
 * window, numbers) and described by the same numbers as visible text; the axis labels are a
 * second SVG laid over the plot, positioned by percentage, so they stay legible at 390 px and at
 * 1280 px while the marks stretch. Colours come from CSS custom properties (`--c` is the column's
 * colour), so the dark scheme needs nothing here. Geometry: lib/charts/series_chart.ts.
 */

import { CHART_BOX, type SeriesChart as Chart } from "../../lib/charts/series_chart.ts";

/** Props of `SeriesChart`. */
export interface SeriesChartProps {
  chart: Chart;
  /** Prefix of the element ids (unique on the page). */
  id: string;
  /** The column's colour class (`col-N`, components/column_color.ts). */
  colorClass: string;
}

const pct = (v: number, of: number) => `${((v / of) * 100).toFixed(2)}%`;

/** An x label is centred on its tick, but kept inside the plot at both ends. */
function xAnchor(at: number): "start" | "middle" | "end" {
  return at < 40 ? "start" : at > CHART_BOX.width - 40 ? "end" : "middle";
}

/**
 * The axis and goal labels: an SVG with no viewBox, so `x="37.5%"` follows the stretched plot
 * while the text keeps its CSS size (no inline styles, so the page CSP needs no exception).
 * They repeat what the summary and the table of days say, so they are hidden from readers.
 */
function Labels({ chart }: { chart: Chart }) {
  const { width, height } = CHART_BOX;
  return (
    <svg class="chart-labels" aria-hidden="true" focusable="false">
      {chart.yTicks.map((t) => (
        <text key={t.label} class="y-label" x="0" y={pct(t.at, height)} dy="-4">{t.label}</text>
      ))}
      {chart.xTicks.map((t) => (
        <text
          key={t.label}
          class="x-label"
          x={pct(t.at, width)}
          y="100%"
          dy="-4"
          text-anchor={xAnchor(t.at)}
        >
          {t.label}
        </text>
      ))}
    </svg>
  );
}

function Marks({ chart }: { chart: Chart }) {
  const { width, height, left, right, bottom } = CHART_BOX;
  return (
    <>
      {chart.goal?.band
        ? (
          <rect
            class="goal-band"
            x={left}
            y={chart.goal.band.y}
            width={width - left - right}
            height={Math.max(0, chart.goal.band.height)}
          />
        )
        : null}
      {chart.yTicks.map((t) => (
        <line key={t.label} class="grid" x1={left} x2={width - right} y1={t.at} y2={t.at} />
      ))}
      <line class="axis" x1={left} x2={width - right} y1={height - bottom} y2={height - bottom} />
      {chart.bars.map((b) => (
        <rect
          key={b.day}
          class={b.state === "below_goal" ? "bar below" : "bar"}
          x={b.x}
          y={b.y}
          width={b.width}
          height={b.height}
        />
      ))}
      {chart.linePath ? <path class="series-line" d={chart.linePath} /> : null}
      {chart.dots.map((d) => (
        // A zero-length round-capped stroke stays a circle however the SVG is stretched.
        <path
          key={d.day}
          class={d.state === "below_goal" ? "dot below" : "dot"}
          d={`M${d.x.toFixed(1)},${d.y.toFixed(1)}h0`}
        />
      ))}
      {chart.goal
        ? (
          <line
            class="goal-line"
            x1={left}
            x2={width - right}
            y1={chart.goal.y}
            y2={chart.goal.y}
          />
        )
        : null}
    </>
  );
}

/**
 * The goal's key, above the plot and outside it (issue #25: a label at the end of the goal line
 * was painted over the latest marks whenever they sat near the goal). Its swatch is the goal
 * line's dash; the words are in the summary too, so the key is hidden from readers.
 */
function GoalKey({ chart }: { chart: Chart }) {
  if (!chart.goal) return null;
  return (
    <p class="chart-key" aria-hidden="true">
      <svg class="goal-swatch" viewBox="0 0 24 4" width="24" height="4" focusable="false">
        <line class="goal-line" x1="0" x2="24" y1="2" y2="2" />
      </svg>
      Goal: {chart.goal.label}
    </p>
  );
}

/** The chart, its goal key, its axis labels and its summary in words. */
export function SeriesChart({ chart, id, colorClass }: SeriesChartProps) {
  const { width, height } = CHART_BOX;
  return (
    <figure class={`chart ${colorClass}`}>
      <GoalKey chart={chart} />
      <div class="chart-plot">
        <svg
          viewBox={`0 0 ${width} ${height}`}
          preserveAspectRatio="none"
          role="img"
          aria-labelledby={`${id}-title`}
          aria-describedby={`${id}-facts`}
        >
          <title id={`${id}-title`}>{chart.summary.name}</title>
          <Marks chart={chart} />
        </svg>
        <Labels chart={chart} />
      </div>
      <figcaption id={`${id}-facts`}>
        <ul class="chart-facts">
          {chart.summary.phrases.map((p) => <li key={p}>{p}</li>)}
        </ul>
      </figcaption>
    </figure>
  );
}
