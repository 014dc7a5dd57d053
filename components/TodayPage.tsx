/**
 * The Today page (`/app`): one control per active column fitted to its type, pre-filled with the
 * day's values, the current streak beside each, one Save for the day and a "Skip day" per column.
 * Each column is a group (`fieldset`) named by its label, so its control and its "Skip day" button
 * are found by the column's name. Works without JavaScript: everything is one form.
 */

import { goalWords } from "../lib/charts/format.ts";
import { MAX_NOTE_CHARS } from "../lib/actions/proxy_actions.ts";
import {
  offersClear,
  type TodayColumn,
  type TodayView,
  type TypedValues,
} from "../lib/webapp/today.ts";
import { AppShell } from "./AppShell.tsx";
import { columnColor } from "./column_color.ts";
import { CsrfField, ErrorSummary } from "./form.tsx";
import { StarterTemplatesForm } from "./ColumnsPage.tsx";
import { dayTitle } from "./dates.ts";
import { type HabitError, HabitList } from "./HabitList.tsx";
import type { HabitListView } from "../lib/webapp/habits.ts";
import { streakLength, weekProgressWords } from "./streak_words.ts";
import { groupSections, sectionHeading } from "../lib/webapp/groups.ts";

/** Props of `TodayPage`. */
export interface TodayPageProps {
  view: TodayView;
  /** Who is signed in; `timezone` decides whether the UTC notice shows. */
  member: { displayName: string; username: string; timezone?: string };
  csrfToken: string;
  flash?: string | null;
  /** After a failed save: what was typed and the messages, by column key. */
  typed?: TypedValues;
  errors?: Record<string, string>;
  /** `?day=` named no day to log: what was asked, and why not (beside "Log another day"). */
  dayError?: { typed: string; message: string };
  /** Today's habit list (issue #24), above the day form; a failed cell post's message in it. */
  habits?: HabitListView;
  habitError?: HabitError;
}

/** A weekly goal: "2 of 3 this week", then the run of met weeks when there is one. */
function weeklyText(s: TodayColumn["streak"], week: { done: number; target: number }): string {
  const run = s.length > 0 ? ` · streak ${streakLength(s.length, s.unit)}` : "";
  const best = s.longest > s.length ? ` · best ${s.longest}` : "";
  return weekProgressWords(week) + run + best;
}

function streakText(s: TodayColumn["streak"]): string {
  if (s.week) return weeklyText(s, s.week);
  if (s.status === "never_started") return "No streak yet";
  const now = `Streak: ${streakLength(s.length, s.unit)}`;
  const best = s.longest > s.length ? ` · best ${s.longest}` : "";
  // at_risk: today can still extend the run; logged short of the goal needs more, not a log.
  const risk = s.status !== "at_risk"
    ? ""
    : s.todayState === "below_goal"
    ? " · reach the goal today to keep it"
    : " · log today to keep it";
  return now + best + risk;
}

function storedText(col: TodayColumn): string {
  const v = col.value;
  if (typeof v !== "number") return "";
  if (col.column.type === "time_of_day") {
    return `${String(Math.floor(v / 60)).padStart(2, "0")}:${String(v % 60).padStart(2, "0")}`;
  }
  return String(v);
}

interface ControlProps {
  col: TodayColumn;
  id: string;
  legendId: string;
  describedBy: string;
  typed?: string;
  invalid: boolean;
}

function ScaleControl(p: ControlProps) {
  const { column } = p.col;
  const chosen = p.typed ?? storedText(p.col);
  const options = [];
  for (let n = column.scale_min!; n <= column.scale_max!; n++) options.push(n);
  return (
    <div
      class="scale"
      role="radiogroup"
      aria-labelledby={p.legendId}
      aria-describedby={p.describedBy}
    >
      {options.map((n) => (
        <label key={n}>
          <input
            type="radio"
            name={`v.${column.key}`}
            value={String(n)}
            checked={chosen === String(n)}
            id={n === column.scale_min ? p.id : undefined}
          />
          <span>{n}</span>
        </label>
      ))}
    </div>
  );
}

function Control(p: ControlProps) {
  const { column, value } = p.col;
  const name = `v.${column.key}`;
  const common = {
    id: p.id,
    name,
    "aria-labelledby": p.legendId,
    "aria-describedby": p.describedBy,
    "aria-invalid": p.invalid ? ("true" as const) : undefined,
  };
  if (column.type === "boolean") {
    const checked = p.typed !== undefined ? true : value === true;
    return (
      <label class="check">
        <input type="hidden" name={`shown.${column.key}`} value="1" />
        <input type="checkbox" value="yes" checked={checked} {...common} />
        Done
      </label>
    );
  }
  const range = (column.scale_max ?? 0) - (column.scale_min ?? 0);
  if (column.type === "scale" && range <= 10) return <ScaleControl {...p} />;
  const text = p.typed ?? storedText(p.col);
  const unit = column.type === "duration_min" ? (column.unit ?? "min") : column.unit;
  const input = column.type === "time_of_day"
    ? <input type="time" value={text} {...common} />
    : (
      <input
        type="text"
        inputMode={column.type === "number" ? "decimal" : "numeric"}
        autocomplete="off"
        value={text}
        {...common}
      />
    );
  return unit
    ? (
      <div class="unit-input">
        {input}
        <span class="unit" id={`${p.id}-unit`}>{unit}</span>
      </div>
    )
    : input;
}

function ColumnEntry(
  { col, typed, error }: { col: TodayColumn; typed?: string; error?: string },
) {
  const key = col.column.key;
  const goal = goalWords(col.column);
  const id = `f-${key}`;
  const legendId = `l-${key}`;
  const unit = col.column.unit || col.column.type === "duration_min";
  const describedBy = [
    unit && col.column.type !== "scale" && col.column.type !== "boolean" ? `${id}-unit` : "",
    error ? `${id}-error` : "",
    `s-${key}`,
  ].filter(Boolean).join(" ");
  return (
    <fieldset class={`entry ${columnColor(col.column, col.index).className}`}>
      <legend id={legendId}>{col.column.label}</legend>
      <Control
        col={col}
        id={id}
        legendId={legendId}
        describedBy={describedBy}
        typed={typed}
        invalid={!!error}
      />
      {error ? <span class="field-error" id={`${id}-error`}>{error}</span> : null}
      <div class="entry-meta">
        <span class="streak" id={`s-${key}`}>
          {col.paused
            ? <span class="state-skip state-paused">Paused</span>
            : col.value === "skip"
            ? <span class="state-skip">Skipped</span>
            : null} {streakText(col.streak)}
          {goal ? <span class="goal">{` · Goal: ${goal}`}</span> : null}
        </span>
        <span class="entry-buttons">
          {offersClear(col)
            ? (
              <button type="submit" name="clear" value={key} class="quiet">
                Clear<span class="visually-hidden">{` ${col.column.label}`}</span>
              </button>
            )
            : null}
          <button type="submit" name="skip" value={key} class="quiet">Skip day</button>
        </span>
      </div>
    </fieldset>
  );
}

/** The day's columns: in headed sections when the member has groups (issue #25), else one list. */
function EntryList(
  { view, typed, errors }: {
    view: TodayView;
    typed?: TypedValues;
    errors?: Record<string, string>;
  },
) {
  const entry = (col: TodayColumn) => (
    <ColumnEntry
      key={col.column.key}
      col={col}
      typed={typed?.[col.column.key]}
      error={errors?.[col.column.key]}
    />
  );
  const sections = groupSections(view.columns, (col) => col.column.group);
  if (!sections) return <div class="entry-list">{view.columns.map(entry)}</div>;
  return (
    <>
      {sections.map((section, i) => (
        <section key={section.group ?? ""} class="entry-group" aria-labelledby={`eg-${i}`}>
          <h2 id={`eg-${i}`} class="group-heading">{sectionHeading(section)}</h2>
          <div class="entry-list">{section.items.map(entry)}</div>
        </section>
      ))}
    </>
  );
}

function NoteField(
  { view, typed, error }: { view: TodayView; typed?: string; error?: string },
) {
  return (
    <div class="field note-field">
      <label for="f-note">Note</label>
      <textarea
        id="f-note"
        name="note"
        rows={3}
        maxLength={MAX_NOTE_CHARS}
        aria-describedby={error ? "f-note-hint f-note-error" : "f-note-hint"}
        aria-invalid={error ? "true" : undefined}
        value={typed ?? view.note ?? ""}
      />
      <span class="hint" id="f-note-hint">
        Anything worth remembering about the day; up to {MAX_NOTE_CHARS} characters.
      </span>
      {error ? <span class="field-error" id="f-note-error">{error}</span> : null}
    </div>
  );
}

function DayNav({ view }: { view: TodayView }) {
  return (
    <nav class="day-nav" aria-label="Day">
      <a class="button" href={`/app?day=${view.previous}`} rel="prev">← Previous day</a>
      {view.next
        ? (
          <a class="button" href={view.next === view.today ? "/app" : `/app?day=${view.next}`}>
            Next day →
          </a>
        )
        : <span class="placeholder"></span>}
    </nav>
  );
}

function EmptyState({ csrfToken, allArchived }: { csrfToken: string; allArchived: boolean }) {
  if (allArchived) {
    return (
      <div class="card empty">
        <h2>All your columns are archived</h2>
        <p>
          Restore one on <a href="/app/columns">Columns</a> to log it again.
        </p>
      </div>
    );
  }
  return (
    <div class="card empty">
      <h2>What would you like to track?</h2>
      <p>
        Start with our starter columns — sleep, steps, mood, meditation, water, weight and workout —
        and log your first day in a minute. You can change or archive any of them later.
      </p>
      <StarterTemplatesForm csrfToken={csrfToken} compact />
      <p>
        Or <a href="/app/columns">choose your own columns</a>.
      </p>
    </div>
  );
}

/** "Log another day": a date field (`max` today); after a refused `?day=`, that day and why. */
function GoDay({ view, error }: { view: TodayView; error?: TodayPageProps["dayError"] }) {
  // A date field holds only a real YYYY-MM-DD; anything else is shown in the message instead.
  const kept = error && /^\d{4}-\d{2}-\d{2}$/.test(error.typed) ? error.typed : "";
  return (
    <form method="get" action="/app" class="card go-day">
      <label for="go-day">Log another day</label>
      <div class="unit-input">
        <input
          type="date"
          id="go-day"
          name="day"
          max={view.today}
          value={error ? kept : view.day}
          aria-invalid={error ? "true" : undefined}
          aria-describedby={error ? "go-day-error" : undefined}
        />
        <button type="submit">Go</button>
      </div>
      {error ? <span class="field-error" id="go-day-error">{error.message}</span> : null}
    </form>
  );
}

/**
 * While the account's zone is UTC (issue #25, defect 3: the zone a sign-up without JavaScript
 * used to get silently), a note that a day ends at UTC midnight, linking to where to change it.
 */
function UtcNotice() {
  return (
    <div class="notice info utc-notice">
      <p>
        Your time zone is{" "}
        <strong>UTC</strong>: your day ends at midnight UTC, so evening logs may land on the next
        day. <a href="/app/settings#profile">Set your time zone in Settings</a>{" "}
        (on UTC indeed? Choose your city, such as Europe/London, and this note goes).
      </p>
    </div>
  );
}

/** `/app`. */
export function TodayPage(p: TodayPageProps) {
  const { view } = p;
  const title = view.isToday ? "Today" : dayTitle(view.day);
  const labelOf = (key: string) =>
    key === "note" ? "Note" : view.columns.find((c) => c.column.key === key)?.column.label;
  const summary = Object.fromEntries(
    Object.entries(p.errors ?? {}).map(([k, m]) => [k, `${labelOf(k) ?? k}: ${m}`]),
  );
  return (
    <AppShell
      title={title}
      member={p.member}
      active={view.isToday ? "today" : "none"}
      csrfToken={p.csrfToken}
      flash={p.flash}
    >
      <h1>{title}</h1>
      <p class="muted">{view.isToday ? dayTitle(view.day) : "Back-filling a past day."}</p>
      {p.dayError
        ? <ErrorSummary errors={{ day: p.dayError.message }} idOf={() => "go-day"} />
        : null}
      {p.habits ? <HabitList view={p.habits} csrfToken={p.csrfToken} error={p.habitError} /> : null}
      {/* below the habit list, which stays a phone's first screen (issue #24: no scroll for 7) */}
      {p.member.timezone === "UTC" ? <UtcNotice /> : null}
      {view.columns.length === 0 ? null : <DayNav view={view} />}
      {view.columns.length === 0
        ? <EmptyState csrfToken={p.csrfToken} allArchived={view.allArchived} />
        : (
          <form
            method="post"
            action={view.isToday ? "/app" : `/app?day=${view.day}`}
            data-offline
            data-offline-label={dayTitle(view.day)}
            data-day-form
          >
            {/* Enter in a field submits the form's FIRST submit button: make that "Save". */}
            <button type="submit" class="visually-hidden" tabIndex={-1} aria-hidden="true">
              Save
            </button>
            <ErrorSummary errors={summary} />
            <CsrfField token={p.csrfToken} />
            <input type="hidden" name="day" value={view.day} />
            <EntryList view={view} typed={p.typed} errors={p.errors} />
            <NoteField view={view} typed={p.typed?.note} error={p.errors?.note} />
            <div class="save-bar">
              <button type="submit" class="primary">Save</button>
              <a class="button quiet" href="/app/columns">Edit columns</a>
              <a class="button quiet" href="/app/pauses">Pause days</a>
            </div>
          </form>
        )}
      {view.columns.length === 0 ? null : <GoDay view={view} error={p.dayError} />}
    </AppShell>
  );
}
