/**
 * The import preview (Settings → Import, issue #11 §6): what the file holds, how its columns map
 * onto the member's (existing or new), the logged values it would replace, every rejected row with
 * its line, and the days as they would be — then "Import" commits, all or nothing. The confirm
 * form carries the file back (base64, in a multipart body) so it works without JavaScript and
 * without keeping uploads on the server.
 */

import type { ImportResult } from "../lib/record/import_plan.ts";
import type { Profile } from "../lib/record/store.ts";
import type { DayValue } from "../lib/record/types.ts";
import { AppShell } from "./AppShell.tsx";
import { dayDate } from "./dates.ts";
import { Button, CsrfField, Notice } from "./form.tsx";

/** Props of `ImportPreviewPage`. */
export interface ImportPreviewProps {
  member: Profile;
  csrfToken: string;
  result: ImportResult;
  fileName: string;
  /** The uploaded bytes, base64, sent back by the confirm form. */
  payload: string;
}

const FORMAT_NAMES: Record<ImportResult["format"], string> = {
  "routine-tracker": "Routine Tracker CSV",
  "routine-tracker-json": "Routine Tracker JSON",
  loop: "Loop Habit Tracker",
  daylio: "Daylio",
};

/** Days listed in the preview table (the counts above it are complete). */
const SHOWN_DAYS = 30;

function valueText(v: DayValue | string | undefined): string {
  if (v === undefined) return "";
  if (v === true) return "yes";
  if (v === false) return "no";
  if (v === "skip") return "skipped";
  return String(v);
}

/**
 * A column as the member knows it: its label (the mapping's), never its key (#25); two columns of
 * one label get their key beside it so they stay apart.
 */
function columnNames(r: ImportResult): (key: string) => string {
  const labels = new Map<string, string>([["note", "Note"]]);
  const count = new Map<string, number>();
  for (const m of r.mapping) count.set(m.label, (count.get(m.label) ?? 0) + 1);
  for (const m of r.mapping) {
    labels.set(m.key, (count.get(m.label) ?? 0) > 1 ? `${m.label} (${m.key})` : m.label);
  }
  return (key) => labels.get(key) ?? key;
}

function Summary({ r, fileName }: { r: ImportResult; fileName: string }) {
  const created = r.mapping.filter((m) => m.create).length;
  return (
    <dl class="import-summary">
      <div>
        <dt>File</dt>
        <dd>{fileName} · {FORMAT_NAMES[r.format]}</dd>
      </div>
      <div>
        <dt>Rows in the file</dt>
        <dd>{r.rows}</dd>
      </div>
      <div>
        <dt>Days with data</dt>
        <dd>
          {r.days}
          {r.firstDate && r.lastDate ? ` (${dayDate(r.firstDate)} to ${dayDate(r.lastDate)})` : ""}
        </dd>
      </div>
      <div>
        <dt>Days it changes</dt>
        <dd>{r.changed} ({r.unchanged} already logged exactly so)</dd>
      </div>
      <div>
        <dt>New columns</dt>
        <dd>{created}</dd>
      </div>
      <div>
        <dt>Conflicts</dt>
        <dd>{r.conflictCount}</dd>
      </div>
      <div>
        <dt>Rows with errors</dt>
        <dd>{r.errorCount}</dd>
      </div>
    </dl>
  );
}

function Mapping({ r }: { r: ImportResult }) {
  return (
    <section>
      <h2 id="map-h">How the columns map</h2>
      <div class="table-wrap short-cells" tabIndex={0} role="region" aria-labelledby="map-h">
        <table>
          <thead>
            <tr>
              <th scope="col">In the file</th>
              <th scope="col">Your column</th>
              <th scope="col">Type</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {r.mapping.map((m) => (
              <tr key={m.source}>
                <td>{m.source}</td>
                <td>
                  {m.label} <code>{m.key}</code>
                </td>
                <td>{m.type}{m.unit ? ` (${m.unit})` : ""}</td>
                <td>{m.create ? <strong>Create</strong> : "Existing"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Errors({ r }: { r: ImportResult }) {
  if (r.errorCount === 0) return null;
  return (
    <section>
      <h2 id="err-h">Rows with errors</h2>
      <Notice kind="error">
        {r.errorCount === 1 ? "1 row has an error" : `${r.errorCount} rows have errors`}; nothing
        can be imported until the file is fixed{r.moods ? " or each mood has a place" : ""}.
      </Notice>
      <div class="table-wrap" tabIndex={0} role="region" aria-labelledby="err-h">
        <table>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Date</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {r.errors.map((e) => (
              <tr key={`${e.line}-${e.reason}`}>
                <td>{e.line}</td>
                <td>{e.date}</td>
                <td>{e.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Conflicts({ r }: { r: ImportResult }) {
  if (r.conflictCount === 0) return null;
  const nameOf = columnNames(r);
  return (
    <section>
      <h2 id="conf-h">Conflicts with what you logged</h2>
      <p>
        {r.onConflict === "keep"
          ? "What you logged stays on these days; the file only fills what is empty."
          : "The file's value replaces the logged one on these days."}{" "}
        Choose below, before you import.
      </p>
      <div class="table-wrap short-cells" tabIndex={0} role="region" aria-labelledby="conf-h">
        <table>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Column</th>
              <th scope="col">Logged</th>
              <th scope="col">In the file</th>
            </tr>
          </thead>
          <tbody>
            {r.conflicts.map((c) => (
              <tr key={`${c.date}-${c.column}`}>
                <td>{dayDate(c.date)}</td>
                <td>{nameOf(c.column)}</td>
                <td>{valueText(c.stored)}</td>
                <td>{valueText(c.incoming)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Moods({ r }: { r: ImportResult }) {
  if (!r.moods) return null;
  return (
    <fieldset class="mood-map">
      <legend>Where each Daylio mood sits on the 1–5 Mood scale</legend>
      {r.moods.filter((m) => m.label !== "").map((m) => (
        <div class="field" key={m.label}>
          <label for={`mood-${m.label}`}>
            “{m.label}” ({m.count} {m.count === 1 ? "entry" : "entries"})
          </label>
          <select id={`mood-${m.label}`} name={`mood:${m.label}`}>
            <option value="" selected={m.value === null}>Choose…</option>
            {[5, 4, 3, 2, 1].map((n) => (
              <option key={n} value={String(n)} selected={m.value === n}>{n}</option>
            ))}
          </select>
        </div>
      ))}
    </fieldset>
  );
}

/** The choice on conflicts, sent with the confirm form: only shown when there are conflicts. */
function ConflictChoice({ r }: { r: ImportResult }) {
  if (r.conflictCount === 0) return null;
  const choices = [
    ["replace", "Take the file's", "its value replaces what you logged"],
    ["keep", "Keep what I logged", "the file only fills days and columns you left empty"],
  ] as const;
  return (
    <fieldset class="conflict-choice">
      <legend>
        When the file and what you logged differ ({r.conflictCount}{" "}
        {r.conflictCount === 1 ? "value" : "values"})
      </legend>
      {choices.map(([value, label, hint]) => (
        <div class="choice" key={value}>
          <input
            type="radio"
            id={`on-conflict-${value}`}
            name="onConflict"
            value={value}
            checked={r.onConflict === value}
            aria-describedby={`on-conflict-${value}-hint`}
          />
          <label for={`on-conflict-${value}`}>{label}</label>
          <span class="hint" id={`on-conflict-${value}-hint`}>{hint}</span>
        </div>
      ))}
    </fieldset>
  );
}

function Days({ r }: { r: ImportResult }) {
  const keys = [...new Set(r.mapping.map((m) => m.key))];
  const nameOf = columnNames(r);
  const days = r.preview.slice(0, SHOWN_DAYS);
  if (days.length === 0) return null;
  return (
    <section>
      <h2 id="days-h">The days, as they would be</h2>
      <p class="muted">
        The newest {days.length} of {r.days} days: the file's values for each column.
      </p>
      <div class="table-wrap" tabIndex={0} role="region" aria-labelledby="days-h">
        <table>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Change</th>
              {keys.map((k) => <th scope="col" key={k}>{nameOf(k)}</th>)}
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date}>
                <th scope="row">{dayDate(d.date)}</th>
                <td>{d.status}</td>
                {keys.map((k) => <td key={k}>{valueText(d.values[k])}</td>)}
                <td>{d.note ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The preview page, with the confirm form. */
export function ImportPreviewPage(p: ImportPreviewProps) {
  const r = p.result;
  const blocked = r.errorCount > 0;
  const confirmForm = (
    <form method="post" action="/app/settings/import" enctype="multipart/form-data">
      <CsrfField token={p.csrfToken} />
      <input type="hidden" name="format" value={r.format} />
      <input type="hidden" name="fileName" value={p.fileName} />
      <input type="hidden" name="payload" value={p.payload} />
      <Moods r={r} />
      <ConflictChoice r={r} />
      <div class="actions">
        {r.moods || r.conflictCount > 0
          ? <Button name="step" value="preview">Update preview</Button>
          : null}
        {blocked ? null : (
          <Button variant="primary" name="step" value="commit">
            Import
          </Button>
        )}
        <a class="button quiet" href="/app/settings#import">Cancel</a>
      </div>
    </form>
  );
  return (
    <AppShell title="Import preview" member={p.member} active="settings" csrfToken={p.csrfToken}>
      <div class="settings import-preview">
        <h1>Import preview</h1>
        <p>Nothing is written yet. Check how the file maps, then import.</p>
        <Summary r={r} fileName={p.fileName} />
        <ul class="notices">
          {r.notices.map((n) => <li key={n}>{n}</li>)}
        </ul>
        <Errors r={r} />
        {r.moods ? confirmForm : null}
        <Mapping r={r} />
        <Conflicts r={r} />
        <Days r={r} />
        {r.moods ? null : confirmForm}
      </div>
    </AppShell>
  );
}
