/**
 * The History page (`/app/history`, issues #11 §3 and #25): a column picker (by group, as Today
 * lists them), the selected column's streaks, habit strength and weekly progress, its chart with
 * the 30 days / 90 days / 1 year / all time switch, one year's calendar with links to every
 * earlier year, and one month's table of days linking each day to Today for editing, with links to
 * the months before and after. Every switch is a plain link (no JavaScript), and each link keeps
 * the rest of the page's state. Every date is in the member's date style (components/dates.ts).
 * Props in, markup out (lib/webapp/history.ts builds the view).
 */

import type { StreakUnit } from "../lib/analytics/streak.ts";
import type {
  ColumnChoice,
  HistoryRange,
  HistoryState,
  HistoryView,
} from "../lib/webapp/history.ts";
import { HISTORY_RANGES } from "../lib/webapp/history.ts";
import { groupSections, sectionHeading } from "../lib/webapp/groups.ts";
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

/** The words of each range link. */
const RANGE_WORDS: Record<HistoryRange, string> = {
  "30": "30 days",
  "90": "90 days",
  "365": "1 year",
  "all": "All time",
};

/** The page's state, for links that change one part of it. */
function stateOf(view: HistoryView): HistoryState {
  return {
    column: view.selected?.key ?? "",
    range: view.range,
    year: view.year,
    month: view.month?.key ?? view.today.slice(0, 7),
  };
}

/**
 * A History link: the state with `change` applied. This year and this month are the defaults, so
 * they stay out of the URL (a link that lands on today's calendar does not go stale).
 */
function hrefOf(view: HistoryView, change: Partial<HistoryState>): string {
  const s = { ...stateOf(view), ...change };
  let href = `/app/history?column=${encodeURIComponent(s.column)}&range=${s.range}`;
  if (s.year !== Number(view.today.slice(0, 4))) href += `&year=${s.year}`;
  if (s.month !== view.today.slice(0, 7)) href += `&month=${s.month}`;
  return href;
}

/** "12 days" with the number large: the figure is what the eye looks for. */
function Count({ n, unit }: { n: number; unit: StreakUnit }) {
  return (
    <>
      <strong>{n}</strong> {streakUnitWords(unit, n)}
    </>
  );
}

function ColumnLink({ view, choice }: { view: HistoryView; choice: ColumnChoice }) {
  return (
    <li class={columnColor(choice, choice.colorIndex).className}>
      <a
        href={hrefOf(view, { column: choice.key, month: view.today.slice(0, 7) })}
        aria-current={choice.key === view.selected?.key ? "page" : undefined}
      >
        {choice.label}
        {/* the space makes the link's name "Run archived", not "Runarchived" */}
        {choice.archived
          ? (
            <>
              {" "}
              <span class="tag">archived</span>
            </>
          )
          : null}
      </a>
    </li>
  );
}

/**
 * The columns, by group when the member has groups (issue #25), in Today's order: the grouping of
 * Today's form and the habit list (lib/webapp/groups.ts) over the active columns first, so the
 * groups come as Today shows them; archived columns follow the active ones of their group, and a
 * group of archived columns only comes last. Each group is a list named by its label.
 */
function ColumnPicker({ view }: { view: HistoryView }) {
  const link = (c: ColumnChoice) => <ColumnLink key={c.key} view={view} choice={c} />;
  const ordered = [
    ...view.columns.filter((c) => !c.archived),
    ...view.columns.filter((c) => c.archived),
  ];
  const sections = groupSections(ordered, (c) => c.group);
  return (
    <nav class="column-picker" aria-label="Columns">
      {sections
        ? sections.map((section, i) => (
          <div key={section.group ?? ""} class="picker-group">
            <span id={`cg-${i}`} class="group-heading">{sectionHeading(section)}</span>
            <ul aria-labelledby={`cg-${i}`}>{section.items.map(link)}</ul>
          </div>
        ))
        : <ul>{view.columns.map(link)}</ul>}
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
              <dt>Weekly goal</dt>
              <dd>
                <strong>{s.week.done}</strong> of {s.week.target} this week
              </dd>
            </div>
          )
          : null}
        {s.strength !== null
          ? (
            <div>
              <dt>Habit strength</dt>
              <dd>
                <strong>{s.strength}%</strong>
              </dd>
            </div>
          )
          : null}
      </dl>
      {note ? <p class="hint">{note}</p> : null}
    </div>
  );
}

const ariaCurrent = (on: boolean) => (on ? "page" : undefined);

function RangeSwitch({ view }: { view: HistoryView }) {
  return (
    <nav class="range-switch" aria-label="Chart range">
      {HISTORY_RANGES.map((r) => (
        <a key={r} href={hrefOf(view, { range: r })} aria-current={ariaCurrent(r === view.range)}>
          {RANGE_WORDS[r]}
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
    case "paused":
      return "paused";
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
          {selected.label}, {view.month?.label}, most recent first
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

/** Every year from the first entry's to this one: the calendar of each is one link away. */
function YearLinks({ view }: { view: HistoryView }) {
  if (view.years.length < 2) return null;
  return (
    <nav class="year-links" aria-label="Calendar years">
      <ul>
        {view.years.map((y) => (
          <li key={y}>
            <a href={hrefOf(view, { year: y })} aria-current={ariaCurrent(y === view.year)}>
              {y}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The month the table lists, with links to the months before and after it. */
function MonthLinks({ view }: { view: HistoryView }) {
  const month = view.month!;
  return (
    <nav class="month-links" aria-label="Months of days">
      {month.earlier
        ? (
          <a href={hrefOf(view, { month: month.earlier.key })} rel="prev">
            <span aria-hidden="true">←</span> {month.earlier.label}
          </a>
        )
        : <span />}
      <strong aria-current="page">{month.label}</strong>
      {month.later
        ? (
          <a href={hrefOf(view, { month: month.later.key })} rel="next">
            {month.later.label} <span aria-hidden="true">→</span>
          </a>
        )
        : <span />}
    </nav>
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
      <section class={`card ${color}`} aria-labelledby="calendar-heading">
        <h2 id="calendar-heading">Calendar {view.year}</h2>
        <YearLinks view={view} />
        <CalendarHeatmap heatmap={view.heatmap!} id="heat" colorClass={color} />
      </section>
      {view.rows.length > 0
        ? (
          <section class="card">
            <h2 id="days-heading">Days</h2>
            <MonthLinks view={view} />
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
