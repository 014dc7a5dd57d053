/**
 * The Pauses page (`/app/pauses`, issue #25): "away from 12 to 19 August". A pause makes its days
 * count as skipped — for every column, or the ones ticked — so time away breaks no streak; each
 * pause is listed with a Delete button. Plain form POSTs: it all works without JavaScript.
 */

import type { PauseViewOf } from "../lib/record/pauses.ts";
import type { Column } from "../lib/record/types.ts";
import { pauseColumnField, pauseColumnsWords } from "../lib/webapp/pauses.ts";
import { AppShell } from "./AppShell.tsx";
import { dayTitle } from "./dates.ts";
import { CsrfField, ErrorSummary, Field, type FieldErrors } from "./form.tsx";

/** Props of `PausesPage`. */
export interface PausesPageProps {
  member: { displayName: string; username: string };
  csrfToken: string;
  flash?: string | null;
  /** The member's today (`YYYY-MM-DD`), the form's first default. */
  today: string;
  pauses: PauseViewOf[];
  /** Active columns, in display order. */
  columns: Column[];
  /** A failed add: what was sent and the messages by field. */
  adding?: { form: Record<string, string>; errors: FieldErrors };
}

/** A pause's days in words: `Wednesday 12 August 2026 to Wednesday 19 August 2026`. */
export function pauseDaysWords(p: PauseViewOf): string {
  return p.start === p.end ? dayTitle(p.start) : `${dayTitle(p.start)} to ${dayTitle(p.end)}`;
}

function AddPauseForm(p: PausesPageProps) {
  const { form, errors } = p.adding ?? { form: {}, errors: {} };
  return (
    <form method="post" action="/app/pauses#add" class="card" id="add" novalidate>
      <h2>Add a pause</h2>
      <ErrorSummary errors={errors} idOf={(n) => `p-${n}`} />
      <CsrfField token={p.csrfToken} />
      <input type="hidden" name="do" value="add" />
      <div class="row">
        <Field
          id="p-start"
          name="start"
          type="date"
          label="First day away"
          value={form.start ?? p.today}
          required
          error={errors.start}
        />
        <Field
          id="p-end"
          name="end"
          type="date"
          label="Last day away"
          value={form.end ?? p.today}
          required
          error={errors.end}
        />
      </div>
      {p.columns.length > 0
        ? (
          <fieldset class="pause-columns">
            <legend>Columns to pause</legend>
            <p class="hint" id="p-columns-hint">Tick none to pause every column.</p>
            {p.columns.map((c) => (
              <label class="check" key={c.key}>
                <input
                  type="checkbox"
                  name={pauseColumnField(c.key)}
                  value="on"
                  checked={form[pauseColumnField(c.key)] !== undefined}
                />
                {c.label}
              </label>
            ))}
          </fieldset>
        )
        : null}
      <div class="actions">
        <button type="submit" class="primary">Add pause</button>
      </div>
    </form>
  );
}

function PauseItem(
  { pause, columns, csrfToken }: { pause: PauseViewOf; columns: Column[]; csrfToken: string },
) {
  const days = pauseDaysWords(pause);
  return (
    <li class="card pause-item">
      <p>
        <strong>{days}</strong>
        <span class="muted small pause-columns-words">{pauseColumnsWords(pause, columns)}</span>
      </p>
      <form method="post" action="/app/pauses" class="actions">
        <CsrfField token={csrfToken} />
        <input type="hidden" name="do" value="delete" />
        <input type="hidden" name="id" value={pause.id} />
        <button type="submit" class="quiet">
          Delete<span class="visually-hidden">{` the pause ${days}`}</span>
        </button>
      </form>
    </li>
  );
}

/** `/app/pauses`. */
export function PausesPage(p: PausesPageProps) {
  return (
    <AppShell
      title="Pauses"
      member={p.member}
      active="none"
      csrfToken={p.csrfToken}
      flash={p.flash}
    >
      <h1>Pauses</h1>
      <p class="muted">
        Away for a while? Pause those days: where nothing is logged they count as skipped, so no
        streak breaks. Anything you do log on a paused day still counts.
      </p>
      <AddPauseForm {...p} />
      <section aria-labelledby="pauses-h">
        <h2 id="pauses-h">Your pauses</h2>
        {p.pauses.length === 0 ? <p>None yet.</p> : (
          <ul class="pause-list">
            {p.pauses.map((pause) => (
              <PauseItem
                key={pause.id}
                pause={pause}
                columns={p.columns}
                csrfToken={p.csrfToken}
              />
            ))}
          </ul>
        )}
      </section>
    </AppShell>
  );
}
