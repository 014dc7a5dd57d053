/**
 * The History page (`/app/history`, issue #11 §3): a column picker, the selected column's streaks,
 * its chart with the 30 / 90 / 365-day switch (plain links: no JavaScript), the year calendar and
 * the table of days linking each day to Today for editing. Props in, markup out
 * (lib/webapp/history.ts builds the view).
 */

import type { StreakUnit } from "../lib/analytics/streak.ts";
import type { HistoryRange, HistoryView } from "../lib/webapp/history.ts";
import { HISTORY_RANGES } from "../lib/webapp/history.ts";
import type { CellState } from "../lib/charts/heatmap.ts";
import { AppShell } from "./AppShell.tsx";
import { CalendarHeatmap } from "./charts/CalendarHeatmap.tsx";
import { SeriesChart } from "./charts/SeriesChart.tsx";
import { columnColor } from "./column_color.ts";
import { Notice } from "./form.tsx";
import { streakUnitWords } from "./streak_words.ts";

/** Props of `HistoryPage`. */
export interface HistoryPageProps {
  view: HistoryView;
  member: { displayName: string; username: string };
  csrfToken: string;
  flash?: string | null;
}

const hrefOf = (column: string, range: HistoryRange) =>
  `/app/history?column=${encodeURIComponent(column)}&range=${range}`;

/** "12 days" with the number large: the figure is what the eye looks for. */
function Count({ n, unit }: { n: number; unit: StreakUnit }) {
  return (
    <>
      <strong>{n}</strong> {streakUnitWords(unit, n)}
    </>
  );
}

function ColumnPicker({ view }: { view: HistoryView }) {
  return (
    <nav class="column-picker" aria-label="Columns">
      <ul>
        {view.columns.map((c) => (
          <li key={c.key} class={columnColor(c, c.colorIndex).className}>
            <a
              href={hrefOf(c.key, view.range)}
              aria-current={c.key === view.selected?.key ? "page" : undefined}
            >
              {c.label}
              {c.archived ? <span class="tag">archived</span> : null}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Streaks({ view }: { view: HistoryView }) {
  const s = view.streak!;
  const unit = s.unit;
  const note = s.status === "at_risk"
    ? "Today is still open: log it to keep the streak."
    : s.status === "active_today"
    ? "Today already counts."
    : null;
  return (
    <div class="streaks">
      <dl>
        <div>
          <dt>Current streak</dt>
          <dd>
            <Count n={s.current} unit={unit} />
          </dd>
        </div>
        <div>
          <dt>Best streak</dt>
          <dd>
            <Count n={s.best} unit={unit} />
          </dd>
        </div>
        {s.week
          ? (
            <div>
              <dt>This week</dt>
              <dd>
                <strong>{s.week.done}</strong> of {s.week.target}
              </dd>
            </div>
          )
          : null}
      </dl>
      {note ? <p class="hint">{note}</p> : null}
    </div>
  );
}

function RangeSwitch({ view }: { view: HistoryView }) {
  return (
    <nav class="range-switch" aria-label="Chart range">
      {HISTORY_RANGES.map((r) => (
        <a
          key={r}
          href={hrefOf(view.selected!.key, r)}
          aria-current={r === view.range ? "page" : undefined}
        >
          {r} days
        </a>
      ))}
    </nav>
  );
}

function stateWords(state: CellState, hasGoal: boolean, yesNo: boolean): string {
  switch (state) {
    case "done":
      return yesNo ? "done" : hasGoal ? "goal met" : "logged";
    case "missed":
      // a yes/no "no" is a miss with or without a goal (analytics/common.ts `dayState`)
      return yesNo ? "not done" : "below goal";
    case "skipped":
      return "skipped";
    case "none":
      return "no entry";
  }
}

function DaysTable({ view }: { view: HistoryView }) {
  const selected = view.selected!;
  const hasGoal = selected.column.goal !== null;
  const yesNo = selected.column.type === "boolean";
  const hasNotes = view.rows.some((r) => r.note !== null);
  return (
    <div
      class="table-scroll"
      role="region"
      aria-labelledby="days-heading"
      tabIndex={0}
      data-scroll-frame
    >
      <table class="days">
        <caption class="visually-hidden">
          {selected.label}, last {view.range} days, most recent first
        </caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Logged</th>
            <th scope="col">Status</th>
            {hasNotes ? <th scope="col">Note</th> : null}
          </tr>
        </thead>
        <tbody>
          {view.rows.map((r) => (
            <tr key={r.date} class={`state-${r.state}`}>
              <th scope="row">
                <a href={`/app?day=${r.date}`}>{r.label}</a>
              </th>
              <td>{r.value}</td>
              <td>{stateWords(r.state, hasGoal, yesNo)}</td>
              {hasNotes ? <td class="note">{r.note ?? ""}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ColumnHistory({ view }: { view: HistoryView }) {
  const selected = view.selected!;
  const color = columnColor(selected, selected.colorIndex).className;
  return (
    <>
      <section class={`card history-main ${color}`} aria-labelledby="column-heading">
        <h2 id="column-heading">{selected.label}</h2>
        {selected.hasData ? null : (
          <p>
            Nothing is logged in {selected.label} yet, so there is nothing to draw.{" "}
            <a href="/app">Log today</a> and your chart, streak and calendar start here.
          </p>
        )}
        <div class="history-top">
          <Streaks view={view} />
          <RangeSwitch view={view} />
        </div>
        <SeriesChart chart={view.chart!} id="chart" colorClass={color} />
      </section>
      <section class="card" aria-labelledby="calendar-heading">
        <h2 id="calendar-heading">Past year</h2>
        <CalendarHeatmap heatmap={view.heatmap!} id="heat" colorClass={color} />
      </section>
      {view.rows.length > 0
        ? (
          <section class="card">
            <h2 id="days-heading">Days</h2>
            <p class="hint">Most recent first. Pick a day to change what is logged.</p>
            <DaysTable view={view} />
          </section>
        )
        : null}
    </>
  );
}

/** The History page. */
export function HistoryPage({ view, member, csrfToken, flash }: HistoryPageProps) {
  return (
    <AppShell title="History" member={member} active="history" csrfToken={csrfToken} flash={flash}>
      <h1>History</h1>
      {view.selected === null
        ? (
          <Notice>
            You have no columns yet, so there is no history to show.{" "}
            <a href="/app/columns">Add a column</a> — a starter template takes a minute.
          </Notice>
        )
        : (
          <>
            <ColumnPicker view={view} />
            <ColumnHistory view={view} />
          </>
        )}
      <script src="/static/scroll_frames.js" defer></script>
    </AppShell>
  );
}
