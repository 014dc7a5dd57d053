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
          {r.firstDate ? ` (${r.firstDate} to ${r.lastDate})` : ""}
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
      <div class="table-wrap" tabIndex={0} role="region" aria-labelledby="map-h">
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
  return (
    <section>
      <h2 id="conf-h">Conflicts with what you logged</h2>
      <p>The file's value replaces the logged one on these days.</p>
      <div class="table-wrap" tabIndex={0} role="region" aria-labelledby="conf-h">
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
                <td>{c.date}</td>
                <td>{c.column}</td>
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

function Days({ r }: { r: ImportResult }) {
  const keys = r.mapping.map((m) => m.key);
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
              {keys.map((k) => <th scope="col" key={k}>{k}</th>)}
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date}>
                <th scope="row">{d.date}</th>
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
      <div class="actions">
        {r.moods ? <Button name="step" value="preview">Update preview</Button> : null}
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
