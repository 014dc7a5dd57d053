/**
 * The Columns page (`/app/columns`): starter templates (one click each, or all at once), the
 * member's columns in order with move up/down, edit, archive, the archived ones with restore, and
 * the "Add column" form. Every button is a plain form POST: it all works without JavaScript.
 */

import type { ComponentChildren } from "preact";
import { goalWords } from "../lib/charts/format.ts";
import type { Column } from "../lib/record/types.ts";
import {
  COLUMN_LIMITS,
  columnAnchor,
  DIRECTION_CHOICES,
  formOfColumn,
  GOAL_CHOICES,
  groupNames,
  type StarterTemplate,
  TYPE_CHOICES,
} from "../lib/webapp/columns.ts";
import { AppShell } from "./AppShell.tsx";
import { columnColor } from "./column_color.ts";
import { CsrfField, ErrorSummary, Field, type FieldErrors } from "./form.tsx";

/** A form being re-shown after an error. */
export interface FormState {
  form: Record<string, string>;
  errors: FieldErrors;
}

/** Props of `ColumnsPage`. */
export interface ColumnsPageProps {
  member: { displayName: string; username: string };
  csrfToken: string;
  flash?: string | null;
  columns: Column[];
  templates: StarterTemplate[];
  adding?: FormState;
  /** The column whose edit form failed, with its state. */
  editing?: FormState & { key: string };
}

const TYPE_WORDS = Object.fromEntries(TYPE_CHOICES.map((t) => [t.value, t.label.split(" (")[0]]));
function describe(c: Column): string {
  const parts = [TYPE_WORDS[c.type] ?? c.type];
  if (c.type === "scale") parts.push(`${c.scale_min}–${c.scale_max}`);
  if (c.unit) parts.push(c.unit);
  const goal = goalWords(c);
  if (goal) parts.push(`goal: ${goal}`);
  if (c.group) parts.push(`group: ${c.group}`);
  parts.push(
    c.missing_policy === "breaks" ? "a missing day breaks the streak" : "missing days are fine",
  );
  return parts.join(" · ");
}

/** The starter templates: "Add all starter columns" and one "Add" per template. */
export function StarterTemplatesForm(
  p: { csrfToken: string; templates?: StarterTemplate[]; taken?: Set<string>; compact?: boolean },
) {
  const taken = p.taken ?? new Set<string>();
  return (
    <form method="post" action="/app/columns" class="stack">
      <CsrfField token={p.csrfToken} />
      {/* From Today's empty state, go straight back to Today to log. */}
      {p.compact ? <input type="hidden" name="return" value="/app" /> : null}
      <div class="actions">
        <button type="submit" name="do" value="templates_all" class="primary">
          Add all starter columns
        </button>
      </div>
      {p.compact || !p.templates ? null : (
        <ul class="template-list">
          {p.templates.map((t) => (
            <li key={t.key}>
              <span>
                <strong>{t.label}</strong>
                <span class="hint">{t.blurb}</span>
              </span>
              {taken.has(t.key)
                ? <span class="muted small">Added</span>
                : (
                  <button type="submit" name="template" value={t.key}>
                    Add<span class="visually-hidden">{` ${t.label}`}</span>
                  </button>
                )}
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

function GoalFields({ prefix, state }: { prefix: string; state: FormState }) {
  const { form, errors } = state;
  return (
    <fieldset>
      <legend>Goal</legend>
      <div class="row">
        <Field
          id={`${prefix}goal_op`}
          name="goal_op"
          label="Kind"
          value={form.goal_op ?? "auto"}
          options={GOAL_CHOICES}
          error={errors.goal_op}
        />
        <Field
          id={`${prefix}goal_value`}
          name="goal_value"
          label="Number"
          inputMode="decimal"
          value={form.goal_value ?? ""}
          error={errors.goal_value}
          hint="Not needed for “Done”."
        />
      </div>
      <div class="row">
        <Field
          id={`${prefix}goal_per`}
          name="goal_per"
          label="Counted"
          value={form.goal_per ?? "day"}
          options={[{ value: "day", label: "Every day" }, {
            value: "week",
            label: "Days per week",
          }]}
        />
        <Field
          id={`${prefix}goal_times`}
          name="goal_times"
          label="Days per week"
          inputMode="numeric"
          value={form.goal_times ?? ""}
          error={errors.goal_times}
          hint="Weekly goals only, 1 to 7."
        />
      </div>
    </fieldset>
  );
}

/** The `datalist` of the member's groups, offered by every Group field. */
const GROUP_LIST_ID = "group-names";

function GroupList({ columns }: { columns: Column[] }) {
  return (
    <datalist id={GROUP_LIST_ID}>
      {groupNames(columns).map((g) => <option key={g} value={g} />)}
    </datalist>
  );
}

function CommonFields(
  { prefix, state, children }: { prefix: string; state: FormState; children?: ComponentChildren },
) {
  const { form, errors } = state;
  return (
    <>
      <Field
        id={`${prefix}label`}
        name="label"
        label="Label"
        value={form.label ?? ""}
        required
        maxLength={COLUMN_LIMITS.labelMax * 2}
        error={errors.label}
        hint={`Up to ${COLUMN_LIMITS.labelMax} characters.`}
      />
      {children}
      <Field
        id={`${prefix}group`}
        name="group"
        label="Group"
        value={form.group ?? ""}
        maxLength={COLUMN_LIMITS.groupMax * 2}
        list={GROUP_LIST_ID}
        autocomplete="off"
        error={errors.group}
        hint={`Optional, e.g. Morning: Today shows a group’s columns together. Up to ${COLUMN_LIMITS.groupMax} characters.`}
      />
      <div class="row">
        <Field
          id={`${prefix}unit`}
          name="unit"
          label="Unit"
          value={form.unit ?? ""}
          error={errors.unit}
          hint="Optional, e.g. h, km, glasses."
        />
        <Field
          id={`${prefix}direction`}
          name="direction"
          label="Direction"
          value={form.direction ?? "neutral"}
          options={DIRECTION_CHOICES}
        />
      </div>
      <GoalFields prefix={prefix} state={state} />
      <label class="check">
        <input type="checkbox" name="missing_breaks" value="on" checked={!!form.missing_breaks} />
        A missing day breaks the streak
      </label>
      <p class="hint">Leave it off for things you only measure now and then, like weight.</p>
    </>
  );
}

function AddColumnForm({ state, csrfToken }: { state: FormState; csrfToken: string }) {
  const { form, errors } = state;
  return (
    // `#add`: the answer to a failed add is this form again — a phone shows it, not the page top.
    <form method="post" action="/app/columns#add" class="card" id="add" novalidate>
      <h2>Add a column</h2>
      <ErrorSummary errors={errors} idOf={(n) => `a-${n}`} />
      <CsrfField token={csrfToken} />
      <input type="hidden" name="do" value="add" />
      <CommonFields prefix="a-" state={state}>
        <div class="row">
          <Field
            id="a-type"
            name="type"
            label="Type"
            value={form.type ?? "number"}
            options={TYPE_CHOICES}
            error={errors.type}
          />
        </div>
        <div class="row">
          <Field
            id="a-scale_min"
            name="scale_min"
            label="Scale from"
            inputMode="numeric"
            value={form.scale_min ?? ""}
            error={errors.scale_min}
            hint="Scale columns only; default 1."
          />
          <Field
            id="a-scale_max"
            name="scale_max"
            label="Scale to"
            inputMode="numeric"
            value={form.scale_max ?? ""}
            error={errors.scale_max}
            hint="Default 5."
          />
        </div>
      </CommonFields>
      <div class="actions">
        <button type="submit" class="primary">Add column</button>
      </div>
    </form>
  );
}

/** "Delete…": asks on a page of its own first (routes/app/columns.tsx), with or without JS. */
function DeleteForm({ c, csrfToken }: { c: Column; csrfToken: string }) {
  return (
    <form method="post" action="/app/columns" class="actions">
      <CsrfField token={csrfToken} />
      <input type="hidden" name="key" value={c.key} />
      <button
        type="submit"
        name="do"
        value="delete"
        class="danger"
        id={columnAnchor(c.key, "delete")}
      >
        Delete<span class="visually-hidden">{` ${c.label}`}</span>
      </button>
    </form>
  );
}

/**
 * ↑, ↓, Archive, Restore: each button has an id the action redirects back to (issue #25,
 * defect 6), so the answer opens at the column with the focus on the button pressed.
 */
function ColumnButtons(
  { c, csrfToken, first, last }: { c: Column; csrfToken: string; first: boolean; last: boolean },
) {
  const hidden = <span class="visually-hidden">{` ${c.label}`}</span>;
  const id = (control: "up" | "down" | "archive" | "restore") => columnAnchor(c.key, control);
  return (
    <form method="post" action="/app/columns" class="actions">
      <CsrfField token={csrfToken} />
      <input type="hidden" name="key" value={c.key} />
      {c.archived
        ? (
          <button type="submit" name="do" value="restore" id={id("restore")}>
            Restore{hidden}
          </button>
        )
        : (
          <>
            <button
              type="submit"
              name="do"
              value="up"
              disabled={first}
              class="icon"
              id={id("up")}
            >
              <span aria-hidden="true">↑</span>
              <span class="visually-hidden">Move {c.label} up</span>
            </button>
            <button
              type="submit"
              name="do"
              value="down"
              disabled={last}
              class="icon"
              id={id("down")}
            >
              <span aria-hidden="true">↓</span>
              <span class="visually-hidden">Move {c.label} down</span>
            </button>
            <button type="submit" name="do" value="archive" class="quiet" id={id("archive")}>
              Archive{hidden}
            </button>
          </>
        )}
    </form>
  );
}

function ColumnItem(
  { c, index, csrfToken, editing, first, last }: {
    c: Column;
    index: number;
    csrfToken: string;
    editing?: ColumnsPageProps["editing"];
    first: boolean;
    last: boolean;
  },
) {
  const state = editing?.key === c.key ? editing : { form: formOfColumn(c), errors: {} };
  const hidden = <span class="visually-hidden">{` ${c.label}`}</span>;
  return (
    <li
      id={columnAnchor(c.key)}
      tabIndex={-1}
      class={`card column-item ${columnColor(c, index).className}${c.archived ? " archived" : ""}`}
    >
      <div class="column-head">
        <h3>
          <span class="swatch" aria-hidden="true"></span>
          {c.label}
        </h3>
        <ColumnButtons c={c} csrfToken={csrfToken} first={first} last={last} />
      </div>
      <p class="muted small">{describe(c)}</p>
      {c.archived
        ? <DeleteForm c={c} csrfToken={csrfToken} />
        : (
          <details open={editing?.key === c.key}>
            <summary>Edit{hidden}</summary>
            <form method="post" action={`/app/columns#${columnAnchor(c.key)}`} novalidate>
              <ErrorSummary errors={state.errors} idOf={(n) => `e-${c.key}-${n}`} />
              <CsrfField token={csrfToken} />
              <input type="hidden" name="do" value="edit" />
              <input type="hidden" name="key" value={c.key} />
              <CommonFields prefix={`e-${c.key}-`} state={state} />
              <div class="actions">
                <button type="submit" class="primary">Save changes</button>
              </div>
            </form>
            <DeleteForm c={c} csrfToken={csrfToken} />
          </details>
        )}
    </li>
  );
}

/** `/app/columns`. */
export function ColumnsPage(p: ColumnsPageProps) {
  const indexed = p.columns.map((c, index) => ({ c, index }));
  const active = indexed.filter((x) => !x.c.archived);
  const archived = indexed.filter((x) => x.c.archived);
  const taken = new Set(p.columns.map((c) => c.key));
  const remaining = p.templates.filter((t) => !taken.has(t.key));
  return (
    <AppShell
      title="Columns"
      member={p.member}
      active="columns"
      csrfToken={p.csrfToken}
      flash={p.flash}
    >
      <h1>Columns</h1>
      <GroupList columns={p.columns} />
      <p class="muted">
        What you log each day. You have {p.columns.length} of {COLUMN_LIMITS.maxColumns}{" "}
        columns (archived ones count); labels are up to {COLUMN_LIMITS.labelMax} characters.
      </p>
      {remaining.length > 0
        ? (
          <section class="card" aria-labelledby="starter-h">
            <h2 id="starter-h">Starter columns</h2>
            <p class="muted">One click each; change them later.</p>
            <StarterTemplatesForm csrfToken={p.csrfToken} templates={p.templates} taken={taken} />
          </section>
        )
        : null}
      <section aria-labelledby="yours-h">
        <h2 id="yours-h">Your columns</h2>
        {active.length === 0
          ? <p>None yet: add a starter column or your own below.</p>
          : (
            <ol class="column-list">
              {active.map(({ c, index }, i) => (
                <ColumnItem
                  key={c.key}
                  c={c}
                  index={index}
                  csrfToken={p.csrfToken}
                  editing={p.editing}
                  first={i === 0}
                  last={i === active.length - 1}
                />
              ))}
            </ol>
          )}
      </section>
      <AddColumnForm state={p.adding ?? { form: {}, errors: {} }} csrfToken={p.csrfToken} />
      {archived.length > 0
        ? (
          <section aria-labelledby="archived-h">
            <h2 id="archived-h">Archived</h2>
            <p class="muted">Kept with their history; restore one to log it again.</p>
            <ul class="column-list">
              {archived.map(({ c, index }) => (
                <ColumnItem key={c.key} c={c} index={index} csrfToken={p.csrfToken} first last />
              ))}
            </ul>
          </section>
        )
        : null}
    </AppShell>
  );
}
