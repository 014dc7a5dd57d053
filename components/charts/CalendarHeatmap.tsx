/**
 * One year's calendar (issues #11 §3, #25; webapp-anchors §4): an `<svg role="img">` named with the
 * column's label, the year and the count of each state, so a screen reader hears one sentence, not
 * 365 cells (the table of days below carries each day of a month, with a link to edit it). States differ
 * by more than colour (WCAG 1.4.1): done is filled, missed is grey with a bar, skipped is hatched
 * as Loop hatches it, no data is an outlined empty square; the legend names each with its count.
 * On a phone the calendar scrolls inside its own frame, newest weeks in view first.
 */

import { formatDay } from "../../lib/foundation/dates.ts";
import { CELL_WORDS, type CellState, type Heatmap, HEATMAP_BOX } from "../../lib/charts/heatmap.ts";
import { dayTitle } from "../dates.ts";

/** Props of `CalendarHeatmap`. */
export interface CalendarHeatmapProps {
  heatmap: Heatmap;
  /** Prefix of the element ids (unique on the page). */
  id: string;
  colorClass: string;
}

const STATES: CellState[] = ["done", "missed", "skipped", "paused", "none"];

/**
 * The fills of skipped days (Loop's hatch) and missed days (grey with a bar), defined once per SVG
 * (ids must be unique on the page), so each day is one `<rect>` with its tooltip: a year is 730
 * elements, not the 1,100–1,400 of a group, a title and a mark per day (issue #25's DOM budget).
 */
function Defs({ id }: { id: string }) {
  return (
    <defs>
      <pattern
        id={`${id}-hatch`}
        width="4"
        height="4"
        patternUnits="userSpaceOnUse"
        patternTransform="rotate(45)"
      >
        <rect width="4" height="4" class="hatch-bg" />
        <line x1="0" y1="0" x2="0" y2="4" class="hatch-line" />
      </pattern>
      <pattern id={`${id}-miss`} width="1" height="1" patternContentUnits="objectBoundingBox">
        <rect width="1" height="1" class="miss-bg" />
        <rect x=".2" y=".42" width=".6" height=".16" class="miss-mark" />
      </pattern>
    </defs>
  );
}

/** A paused day is a skip (the hatch) with an outline of its own (static/styles.css). */
const FILLS: Partial<Record<CellState, string>> = {
  skipped: "hatch",
  paused: "hatch",
  missed: "miss",
};

/** One square in the state's look (also used, larger, in the legend). */
function Cell(
  { x, y, size, state, id, hover, today }: {
    x: number;
    y: number;
    size: number;
    state: CellState;
    id: string;
    /**
     * A tooltip for pointer users ("Tuesday 3 March 2026: done", in the member's date style);
     * readers get the counts in the name.
     */
    hover?: string;
    today?: boolean;
  },
) {
  const fill = FILLS[state] ? `url(#${id}-${FILLS[state]})` : undefined;
  return (
    <rect
      class={`cell ${state}${today ? " today" : ""}`}
      x={x}
      y={y}
      width={size}
      height={size}
      rx="2"
      fill={fill}
    >
      {hover ? <title>{hover}</title> : null}
    </rect>
  );
}

function Legend({ heatmap, id }: { heatmap: Heatmap; id: string }) {
  return (
    <ul class="heat-legend">
      {STATES.filter((s) => s !== "paused" || heatmap.counts.paused > 0).map((s) => (
        <li key={s}>
          <svg viewBox="0 0 14 14" width="14" height="14" aria-hidden="true" focusable="false">
            {FILLS[s] ? <Defs id={`${id}-l`} /> : null}
            <Cell x={1} y={1} size={12} state={s} id={`${id}-l`} />
          </svg>
          <span>
            {CELL_WORDS[s][0].toUpperCase() + CELL_WORDS[s].slice(1)}{" "}
            <strong>{heatmap.counts[s]}</strong>
          </span>
        </li>
      ))}
    </ul>
  );
}

/** One year's calendar with its legend. */
export function CalendarHeatmap({ heatmap, id, colorClass }: CalendarHeatmapProps) {
  const { cell } = HEATMAP_BOX;
  return (
    <div class={`heatmap ${colorClass}`}>
      {/* a tab stop only where it scrolls: static/scroll_frames.js (no JS: always one) */}
      <div
        class="heat-scroll"
        tabIndex={0}
        data-scroll-frame
        role="group"
        aria-label="Calendar, scrolls sideways"
      >
        <svg
          viewBox={`0 0 ${heatmap.width} ${heatmap.height}`}
          role="img"
          aria-labelledby={`${id}-title`}
        >
          <title id={`${id}-title`}>{heatmap.name}</title>
          <Defs id={id} />
          {heatmap.months.map((m) => (
            <text key={`${m.x}`} class="heat-text" x={m.x} y={10}>{m.label}</text>
          ))}
          {heatmap.weekdays.map((w) => (
            <text key={w.label} class="heat-text" x={0} y={w.y}>{w.label}</text>
          ))}
          {heatmap.cells.map((c) => (
            <Cell
              key={c.day}
              x={c.x}
              y={c.y}
              size={cell}
              state={c.state}
              id={id}
              hover={`${dayTitle(formatDay(c.day))}: ${CELL_WORDS[c.state]}`}
              today={c.day === heatmap.today}
            />
          ))}
        </svg>
      </div>
      <Legend heatmap={heatmap} id={id} />
    </div>
  );
}
