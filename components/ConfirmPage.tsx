/**
 * The confirm step of a destructive button when JavaScript is off (with it, the Settings island asks
 * with `confirm()` first): the question, the same POST with `confirmed=yes`, and a way back.
 */

import type { Profile } from "../lib/record/store.ts";
import { type AppSection, AppShell } from "./AppShell.tsx";
import { Button, CsrfField } from "./form.tsx";

/** Props of `ConfirmPage`. */
export interface ConfirmPageProps {
  member: Profile;
  csrfToken: string;
  title: string;
  question: string;
  action: string;
  /** The id the POST carries (Settings' revoke forms). */
  id?: string;
  /** Other hidden fields the POST carries instead (e.g. `do` and `key` on Columns). */
  fields?: Record<string, string>;
  /** The navigation entry to highlight (default Settings). */
  active?: AppSection;
  /** The accessible name of the confirming button (e.g. "Revoke"). */
  button: string;
  cancelHref: string;
}

/** "Are you sure?" as a page. */
export function ConfirmPage(p: ConfirmPageProps) {
  return (
    <AppShell
      title={p.title}
      member={p.member}
      active={p.active ?? "settings"}
      csrfToken={p.csrfToken}
    >
      <div class="card narrow">
        <h1>{p.title}</h1>
        <p>{p.question}</p>
        <form method="post" action={p.action} class="actions">
          <CsrfField token={p.csrfToken} />
          {p.id !== undefined ? <input type="hidden" name="id" value={p.id} /> : null}
          {Object.entries(p.fields ?? {}).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <input type="hidden" name="confirmed" value="yes" />
          <Button variant="danger">{p.button}</Button>
          <a class="button quiet" href={p.cancelHref}>Cancel</a>
        </form>
      </div>
    </AppShell>
  );
}
