/**
 * The habit list on Today (issue #24; Loop's main screen, webapp-anchors §1.3): one row per
 * column, the last seven days as cells, today last. A yes/no cell is a button named
 * "<Label>, <Weekday> <d> <Month>" with `aria-pressed` telling done; a number cell is a disclosure
 * (`details`) holding a small form with "Same as yesterday" and, for counts, "+1". Every cell is
 * its own POST form to `/app/habits`, so a tap saves without JavaScript (Post/Redirect/Get back to
 * the row's anchor); `/static/habits.js` saves the same form with `fetch` without a page load and
 * moves focus with the arrow keys (roving tabindex, WAI-ARIA APG "Keyboard navigation inside
 * components"). A skipped day shows a dash on hatching and a logged "no" a cross: state is never
 * colour alone (WCAG 1.4.1).
 */

import type { HabitCell, HabitListView, HabitRow } from "../lib/webapp/habits.ts";
import type { DateLocale } from "../lib/accounts/accounts.ts";
import { columnColor } from "./column_color.ts";
import { dayMonth, weekdayShort } from "./dates.ts";
import { CsrfField } from "./form.tsx";
import { groupSections, sectionHeading } from "../lib/webapp/groups.ts";

/** A cell's post that failed: which cell, what was typed and why (shown inside that cell). */
export interface HabitError {
  column: string;
  day: string;
  typed: string;
  message: string;
}

/** Props of `HabitList`. */
export interface HabitListProps {
  view: HabitListView;
  csrfToken: string;
  error?: HabitError;
}

/** `2026-11-26` → `Thursday 26 November` (the one date style: components/dates.ts). */
export function cellDay(day: string, locale?: DateLocale): string {
  return dayMonth(day, locale);
}

/** A cell's accessible name: `Workout, Thursday 26 November`. */
export function cellName(label: string, day: string): string {
  return `${label}, ${cellDay(day)}`;
}

/** A stored number as the cell shows it: `22:30` for a time, `8.2k` for large counts. */
export function cellNumber(row: HabitRow, value: number): string {
  if (row.column.type === "time_of_day") {
    return `${String(Math.floor(value / 60)).padStart(2, "0")}:${
      String(value % 60).padStart(2, "0")
    }`;
  }
  if (Math.abs(value) >= 10_000) return `${Math.round(value / 100) / 10}k`;
  return String(Math.round(value * 100) / 100);
}

/** The typed form of a stored number (what the field holds). */
function fieldText(row: HabitRow, value: number): string {
  return row.column.type === "time_of_day" ? cellNumber(row, value) : String(value);
}

/** Ids of the shared words that describe a cell's state (referenced, never shown twice). */
const STATE_WORD_ID = {
  paused: "habit-w-paused",
  skip: "habit-w-skip",
  below_goal: "habit-w-no",
  missing: "habit-w-none",
} as const;

function stateDescription(cell: HabitCell): string | undefined {
  if (cell.paused) return STATE_WORD_ID.paused;
  return cell.state === "qualifies" ? undefined : STATE_WORD_ID[cell.state];
}

/** A cell's class: its state, and `paused` for a day in a pause (issue #25). */
function cellClass(cell: HabitCell): string {
  return `cell state-${cell.state}${cell.paused ? " paused" : ""}`;
}

function CellForm(
  p: { row: HabitRow; cell: HabitCell; csrfToken: string; class: string; children: unknown },
) {
  return (
    <form method="post" action="/app/habits" class={p.class} data-offline="">
      <CsrfField token={p.csrfToken} />
      <input type="hidden" name="day" value={p.cell.day} />
      <input type="hidden" name="column" value={p.row.column.key} />
      {p.children}
    </form>
  );
}

const GLYPH = { qualifies: "✓", below_goal: "✕", skip: "–", missing: "" } as const;
/** A paused day (issue #25): two bars, as a pause button, on the skip's hatching. */
const PAUSED_GLYPH = "‖";

function YesNoCell(
  { row, cell, csrfToken }: { row: HabitRow; cell: HabitCell; csrfToken: string },
) {
  const done = cell.value === true;
  return (
    <CellForm row={row} cell={cell} csrfToken={csrfToken} class="habit-cell">
      <button
        type="submit"
        name="set"
        value={done ? "no" : "yes"}
        class={cellClass(cell)}
        aria-pressed={done ? "true" : "false"}
        aria-label={cellName(row.column.label, cell.day)}
        aria-describedby={stateDescription(cell)}
      >
        <span aria-hidden="true">{cell.paused ? PAUSED_GLYPH : GLYPH[cell.state]}</span>
      </button>
    </CellForm>
  );
}

function NumberCell(
  { row, cell, csrfToken, error }: {
    row: HabitRow;
    cell: HabitCell;
    csrfToken: string;
    error?: HabitError;
  },
) {
  const { column } = row;
  const id = `hc-${column.key}-${cell.day}`;
  const stored = typeof cell.value === "number" ? cell.value : null;
  const shown = cell.paused
    ? PAUSED_GLYPH
    : cell.value === "skip"
    ? "–"
    : stored === null
    ? ""
    : cellNumber(row, stored);
  const unit = column.type === "duration_min" ? (column.unit ?? "min") : column.unit;
  const describedBy = [error ? `${id}-error` : "", unit ? `${id}-unit` : ""].filter(Boolean);
  return (
    <details class="habit-cell habit-num" open={error ? true : undefined}>
      <summary
        class={cellClass(cell)}
        aria-label={cellName(column.label, cell.day)}
        data-goal={column.goal ? `${column.goal.op}:${column.goal.value ?? ""}` : undefined}
        aria-describedby={cell.state === "skip" || cell.state === "missing"
          ? stateDescription(cell)
          : [`${id}-shown`, unit ? `${id}-unit` : ""].join(" ").trim()}
      >
        <span id={`${id}-shown`}>{shown}</span>
      </summary>
      <CellForm row={row} cell={cell} csrfToken={csrfToken} class="habit-edit">
        <label for={id}>{cellName(column.label, cell.day)}</label>
        <div class="unit-input">
          <input
            id={id}
            name="value"
            type={column.type === "time_of_day" ? "time" : "text"}
            inputMode={column.type === "number" ? "decimal" : "numeric"}
            autocomplete="off"
            value={error ? error.typed : stored === null ? "" : fieldText(row, stored)}
            aria-invalid={error ? "true" : undefined}
            aria-describedby={describedBy.length ? describedBy.join(" ") : undefined}
          />
          {unit ? <span class="unit" id={`${id}-unit`}>{unit}</span> : null}
          <button type="submit" class="primary">Save</button>
        </div>
        {error ? <span class="field-error" id={`${id}-error`}>{error.message}</span> : null}
        <div class="habit-quick">
          {cell.yesterday !== null && cell.yesterday !== stored
            ? (
              <button type="submit" name="quick" value={fieldText(row, cell.yesterday)}>
                Same as yesterday ({cellNumber(row, cell.yesterday)})
              </button>
            )
            : null}
          {column.type === "integer"
            ? (
              <button type="submit" name="quick" value={String((stored ?? 0) + 1)} data-plus="1">
                +1
              </button>
            )
            : null}
          <button type="submit" name="set" value="skip" class="quiet">Skip this day</button>
          {/* Issue #25, defect 8: a skip cannot be emptied in the field, so Clear takes it back. */}
          {cell.value !== undefined
            ? <button type="submit" name="set" value="clear" class="quiet">Clear</button>
            : null}
        </div>
      </CellForm>
    </details>
  );
}

function Row(p: { row: HabitRow; csrfToken: string; error?: HabitError }) {
  const { column } = p.row;
  const labelId = `hl-${column.key}`;
  return (
    <li
      class={`habit-row ${columnColor(column, p.row.index).className}`}
      id={`habit-${column.key}`}
    >
      <span class="habit-label" id={labelId}>{column.label}</span>
      {
        /* No group role: every cell's name carries the label already, and the day form below has
          the groups named by the labels. */
      }
      <div class="habit-cells">
        {p.row.cells.map((cell) =>
          column.type === "boolean"
            ? <YesNoCell key={cell.day} row={p.row} cell={cell} csrfToken={p.csrfToken} />
            : (
              <NumberCell
                key={cell.day}
                row={p.row}
                cell={cell}
                csrfToken={p.csrfToken}
                error={p.error?.column === column.key && p.error.day === cell.day
                  ? p.error
                  : undefined}
              />
            )
        )}
      </div>
    </li>
  );
}

/** The rows: under a heading per group when the member has groups (issue #25), else one list. */
function HabitRows({ view, csrfToken, error }: HabitListProps) {
  const list = (rows: HabitRow[]) => (
    <ul class="habit-list">
      {rows.map((row) => (
        <Row
          key={row.column.key}
          row={row}
          csrfToken={csrfToken}
          error={error}
        />
      ))}
    </ul>
  );
  const sections = groupSections(view.rows, (row) => row.column.group);
  if (!sections) return list(view.rows);
  return (
    <>
      {sections.map((section, i) => (
        <div
          key={section.group ?? ""}
          class="habit-group"
          role="group"
          aria-labelledby={`hg-${i}`}
        >
          <h3 id={`hg-${i}`} class="group-heading">{sectionHeading(section)}</h3>
          {list(section.items)}
        </div>
      ))}
    </>
  );
}

/** Today's habit list (nothing when there are no active columns). */
export function HabitList({ view, csrfToken, error }: HabitListProps) {
  if (view.rows.length === 0) return null;
  return (
    <section class="habits" aria-labelledby="habits-h" data-habits="">
      <h2 id="habits-h" class="habits-title">Last 7 days</h2>
      <div class="habit-head" aria-hidden="true">
        <span></span>
        <div class="habit-days">
          {view.days.map((day) => (
            <span key={day} class={day === view.today ? "today" : undefined}>
              {weekdayShort(day)}
              <b>{Number(day.slice(8))}</b>
            </span>
          ))}
        </div>
      </div>
      <HabitRows view={view} csrfToken={csrfToken} error={error} />
      <span hidden id={STATE_WORD_ID.paused}>paused</span>
      <span hidden id={STATE_WORD_ID.skip}>skipped</span>
      <span hidden id={STATE_WORD_ID.below_goal}>logged, not done</span>
      <span hidden id={STATE_WORD_ID.missing}>nothing logged</span>
      <p class="habit-status" role="status"></p>
      <script src="/static/habits.js" defer></script>
    </section>
  );
}
