/**
 * The Settings page's body (`/app/settings`, issue #11 §6): profile, API tokens (a new token shown
 * once), connected apps, export, import, password, account deletion, membership. Every form is a
 * plain POST (or, for the export download, a GET) that works without JavaScript.
 *
 * It is also the Settings island (issue #25; islands/Settings.tsx hydrates it, and the route puts
 * it in the app shell): rendered on the server, then hydrated in the browser to add the Copy
 * button, a confirm() before revoking, the device's time-zone hint and inline checks of each form
 * before it is sent. So its props are plain JSON and it imports nothing from lib/ but types; a
 * section of its own (components/settings/*) follows the same rule.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { EmailSection, type EmailSectionProps } from "./settings/EmailSection.tsx";
import type { ApiTokenView, CreatedApiToken } from "../lib/accounts/api_tokens.ts";
import type { GrantSummary } from "../lib/oauth/grants.ts";
import type { Profile } from "../lib/record/store.ts";
import type { FormErrors } from "../lib/webapp/form_errors.ts";
import { PreferencesSection } from "./settings/PreferencesSection.tsx";
import { dateText, dateTimeText } from "./dates.ts";
import { Button, CsrfField, Field } from "./form.tsx";
import {
  checkDelete,
  checkImport,
  checkPassword,
  checkProfile,
  checkToken,
  type FormCheck,
} from "./settings/form_checks.ts";

/** Which form failed, with its messages and the values to put back. */
export interface SettingsFormState {
  form: "profile" | "preferences" | "token" | "import" | "password" | "delete";
  errors: FormErrors;
  values?: Record<string, string>;
}

/** Props of `SettingsPage`. */
export interface SettingsPageProps {
  member: Profile;
  csrfToken: string;
  tokens: ApiTokenView[];
  grants: GrantSummary[];
  timeZones: string[];
  /** A token just created: shown here, this once. */
  newToken?: CreatedApiToken;
  failed?: SettingsFormState;
  /** Settings → E-mail (issue #24; components/settings/EmailSection.tsx). */
  email?: Omit<EmailSectionProps, "csrfToken">;
  /** The token form's one-time nonce (a UUID): its create's `Idempotency-Key` (issue #25). */
  tokenNonce: string;
  /** The import form's choices and limits (lib/record/import_source.ts, import_plan.ts). */
  imports: ImportLimits;
}

/** What the import form offers and accepts. */
export interface ImportLimits {
  formats: { value: string; label: string }[];
  maxKb: number;
  maxRows: number;
  partDays: number;
}

const SECTIONS = [
  ["profile", "Profile"],
  ["preferences", "Preferences"],
  ["tokens", "API tokens"],
  ["connected-apps", "Connected apps"],
  ["export", "Export"],
  ["import", "Import"],
  ["password", "Password"],
  ["delete-account", "Delete account"],
] as const;

/** The sections the page shows, in its order: E-mail after Import when the page has it. */
function sectionsOf(p: SettingsPageProps): (readonly [string, string])[] {
  if (!p.email) return [...SECTIONS];
  const at = SECTIONS.findIndex(([id]) => id === "import") + 1;
  return [...SECTIONS.slice(0, at), ["email", "E-mail"], ...SECTIONS.slice(at)];
}

/**
 * A date (and time) in the member's own time zone and date style. The locale is passed, not taken
 * from the page's render (components/dates.ts `withDateLocale`): this page is also an island, and
 * its renders in the browser happen outside the server's.
 */
export function whenText(
  iso: string | null,
  member: Pick<Profile, "timezone" | "locale">,
  withTime = false,
): string {
  const { timezone, locale } = member;
  return withTime ? dateTimeText(iso, timezone, locale) : dateText(iso, timezone, locale);
}

function hourLabel(h: number): string {
  if (h === 0) return "Midnight (00:00)";
  if (h === 12) return "Noon (12:00)";
  return `${h} a.m. (${String(h).padStart(2, "0")}:00)`;
}

/** Whether the page is hydrated (false on the server and in a browser without JavaScript). */
function useLive(): boolean {
  const [live, setLive] = useState(false);
  useEffect(() => setLive(true), []);
  return live;
}

/** A form's values as strings (a chosen file by its name). */
function valuesOf(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) {
    out[name] = typeof value === "string" ? value : value.name;
  }
  return out;
}

/**
 * A section's failed form: the server's (`p.failed`), or, once hydrated, the inline check's — the
 * same shape, so the errors show beside the same fields and the values typed stay put. Returns the
 * state and the form's `onSubmit`, which stops a form its check refuses and focuses the first field
 * in error (WCAG 3.3.1 Error Identification).
 */
function useFormCheck(p: SettingsPageProps, form: SettingsFormState["form"], check: FormCheck) {
  const [local, setLocal] = useState<SettingsFormState | null>(null);
  const failed = local ?? (p.failed?.form === form ? p.failed : null);
  const onSubmit = (e: Event) => {
    const el = e.currentTarget as HTMLFormElement;
    const values = valuesOf(el);
    const errors = check(values, { username: p.member.username });
    const first = Object.keys(errors)[0];
    if (first === undefined) return setLocal(null);
    e.preventDefault();
    setLocal({ form, errors, values });
    setTimeout(() => el.querySelector<HTMLElement>(`[name="${first}"]`)?.focus());
  };
  return {
    errors: (failed?.errors ?? {}) as FormErrors,
    values: failed?.values,
    onSubmit,
  };
}

function ProfileSection(p: SettingsPageProps) {
  const { errors: e, values, onSubmit } = useFormCheck(p, "profile", checkProfile);
  const v = values ?? {};
  const m = p.member;
  return (
    <section class="card settings-section" id="profile" aria-labelledby="profile-h">
      <h2 id="profile-h">Profile</h2>
      <form method="post" action="/app/settings/profile#profile" novalidate onSubmit={onSubmit}>
        <CsrfField token={p.csrfToken} />
        <Field
          name="displayName"
          label="Display name"
          value={v.displayName ?? m.displayName}
          error={e.displayName}
          maxLength={80}
          autocomplete="nickname"
          required
        />
        <Field
          name="timezone"
          label="Time zone"
          value={v.timezone ?? m.timezone}
          error={e.timezone}
          list="time-zones"
          autocomplete="off"
          spellcheck={false}
          hint={
            <>
              An IANA name such as <code>Europe/Paris</code>; it decides when your day ends.{" "}
              <DeviceZone saved={m.timezone} />
            </>
          }
          required
        />
        <datalist id="time-zones">
          {p.timeZones.map((z) => <option key={z} value={z} />)}
        </datalist>
        <Field
          name="dayStartOffsetHours"
          label="Day starts at"
          value={v.dayStartOffsetHours ?? String(m.dayStartOffsetHours)}
          error={e.dayStartOffsetHours}
          hint="Before this hour, it still counts as the day before (for late nights)."
          options={Array.from({ length: 13 }, (_, h) => ({
            value: String(h),
            label: hourLabel(h),
          }))}
        />
        <Button variant="primary">Save profile</Button>
      </form>
    </section>
  );
}

/**
 * "This device is in …": once hydrated, offers the browser's own zone when it differs from the
 * saved one (`Intl…resolvedOptions().timeZone`); nothing without JavaScript, where the zone is typed.
 */
function DeviceZone({ saved }: { saved: string }) {
  const [zone, setZone] = useState("");
  useEffect(() => {
    try {
      setZone(Intl.DateTimeFormat().resolvedOptions().timeZone || "");
    } catch {
      // an old browser: nothing to offer
    }
  }, []);
  if (!zone || zone === saved) return null;
  const use = () => {
    const input = document.getElementById("f-timezone") as HTMLInputElement | null;
    if (!input) return;
    input.value = zone;
    input.focus();
  };
  return (
    <span>
      This device is in{" "}
      <button type="button" class="link-button" aria-label={`Use ${zone}`} onClick={use}>
        {zone}
      </button>.
    </span>
  );
}

/** Copies the new token (the Clipboard API, else the selection); a status line says it did. */
async function copyToken(status: (text: string) => void): Promise<void> {
  const input = document.getElementById("new-token") as HTMLInputElement | null;
  if (!input) return;
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  status("Copied. Paste it where your program keeps secrets.");
}

function NewToken({ token }: { token: CreatedApiToken }) {
  // `hidden` until hydrated: without JavaScript a Copy button would do nothing (issue #25, defect
  // 4), and the token sits in a read-only field to select instead.
  const live = useLive();
  const [copied, setCopied] = useState("");
  return (
    <div class="notice success new-token" role="status">
      <h3>Your new token “{token.name}”</h3>
      <p>
        <strong>Copy it now. It is shown only this once:</strong>{" "}
        after you leave this page, no one can see it again, us included. Treat it like a password.
      </p>
      <label for="new-token">Token</label>
      <div class="copy-row">
        <input id="new-token" readonly value={token.token} spellcheck={false} />
        <button type="button" hidden={!live} onClick={() => copyToken(setCopied)}>Copy</button>
      </div>
      <p class="hint" aria-live="polite">{copied}</p>
    </div>
  );
}

function TokensSection(p: SettingsPageProps) {
  const { errors: e, values, onSubmit } = useFormCheck(p, "token", checkToken);
  const member = p.member;
  return (
    <section class="card settings-section" id="tokens" aria-labelledby="tokens-h">
      <h2 id="tokens-h">API tokens</h2>
      <p>
        A token lets a script or an AI agent <strong>read</strong>{" "}
        your record (never change it). See <a href="/docs/authentication">how to use one</a>.
      </p>
      {p.newToken ? <NewToken token={p.newToken} /> : null}
      <form
        method="post"
        action="/app/settings/tokens#tokens"
        class="inline-create"
        novalidate
        onSubmit={onSubmit}
      >
        <CsrfField token={p.csrfToken} />
        <input type="hidden" name="scope" value="read" />
        {/* One per page render: sent again (a reload), the server makes no second token. */}
        <input type="hidden" name="nonce" value={p.tokenNonce} />
        <Field
          name="name"
          label="Token name"
          value={values?.name}
          error={e.name ?? e._form}
          hint="Where it will be used, e.g. “Laptop script”. Scope: read (read-only)."
          maxLength={80}
          required
        />
        <Button variant="primary">Create token</Button>
      </form>
      {p.tokens.length === 0
        ? <p class="muted">You have no API tokens.</p>
        : (
          <ul class="item-list" aria-label="Your API tokens">
            {p.tokens.map((t) => (
              <li key={t.id} class="item">
                <div class="item-main">
                  <strong id={`token-${t.id}`}>{t.name}</strong>
                  <span class="muted small">
                    <code>{t.prefixHint}…</code> · created {whenText(t.createdAt, member)} ·{" "}
                    {t.lastUsedAt
                      ? `last used ${whenText(t.lastUsedAt, member, true)}`
                      : "never used"}
                  </span>
                </div>
                <RevokeForm
                  action="/app/settings/tokens/revoke"
                  id={t.id}
                  csrfToken={p.csrfToken}
                  describedBy={`token-${t.id}`}
                  question={`Revoke the token “${t.name}”? Programs using it stop at once.`}
                />
              </li>
            ))}
          </ul>
        )}
    </section>
  );
}

/** A "Revoke" button; with JavaScript it asks first, without it the server shows a confirm page. */
function RevokeForm(
  props: { action: string; id: string; csrfToken: string; describedBy: string; question: string },
) {
  // Asked here, the server skips its confirm page (`confirmed=yes`); refused, nothing is sent.
  const onSubmit = (e: Event) => {
    const confirmed = (e.currentTarget as HTMLFormElement).elements.namedItem("confirmed");
    if (!(confirmed instanceof HTMLInputElement) || confirmed.value === "yes") return;
    if (globalThis.confirm(props.question)) confirmed.value = "yes";
    else e.preventDefault();
  };
  return (
    <form method="post" action={props.action} class="inline-form" onSubmit={onSubmit}>
      <CsrfField token={props.csrfToken} />
      <input type="hidden" name="id" value={props.id} />
      <input type="hidden" name="confirmed" value="" />
      <Button variant="danger" aria-describedby={props.describedBy}>Revoke</Button>
    </form>
  );
}

function AppsSection(p: SettingsPageProps) {
  const member = p.member;
  return (
    <section class="card settings-section" id="connected-apps" aria-labelledby="apps-h">
      <h2 id="apps-h">Connected apps</h2>
      <p>Apps you allowed to read your record through OAuth. Revoking one stops it at once.</p>
      {p.grants.length === 0
        ? <p class="muted">No app is connected.</p>
        : (
          <ul class="item-list" aria-label="Connected apps">
            {p.grants.map((g) => (
              <li key={g.grantId} class="item">
                <div class="item-main">
                  <strong id={`grant-${g.grantId}`}>{g.clientName ?? g.redirectHost}</strong>
                  <span class="muted small">
                    {g.redirectHost} · scopes: {g.scope} · approved {whenText(g.createdAt, member)}
                    {g.refreshedAt
                      ? ` · last renewed its access ${whenText(g.refreshedAt, member, true)}`
                      : ""}
                  </span>
                </div>
                <RevokeForm
                  action="/app/settings/apps/revoke"
                  id={g.grantId}
                  csrfToken={p.csrfToken}
                  describedBy={`grant-${g.grantId}`}
                  question={`Revoke ${g.clientName ?? g.redirectHost}? It loses access at once.`}
                />
              </li>
            ))}
          </ul>
        )}
    </section>
  );
}

function DataSections(p: SettingsPageProps) {
  const { errors: e, values, onSubmit } = useFormCheck(p, "import", checkImport);
  const { formats, maxKb, maxRows, partDays } = p.imports;
  return (
    <>
      <section class="card settings-section" id="export" aria-labelledby="export-h">
        <h2 id="export-h">Export</h2>
        <p>Download your whole record: every column, day and note.</p>
        <form method="get" action="/app/settings/export" class="actions">
          <Button name="format" value="csv">Export CSV</Button>
          <Button name="format" value="json">Export JSON</Button>
        </form>
      </section>
      <section class="card settings-section" id="import" aria-labelledby="import-h">
        <h2 id="import-h">Import</h2>
        <p>
          Bring your history from Loop Habit Tracker, Daylio or an earlier export (CSV or JSON, also
          into a new account: columns you do not have are created). You see a preview first (how
          columns map, what it would change); nothing is written until you confirm.
        </p>
        <form
          method="post"
          action="/app/settings/import#import"
          enctype="multipart/form-data"
          novalidate
          onSubmit={onSubmit}
        >
          <CsrfField token={p.csrfToken} />
          <Field
            name="format"
            label="Format"
            value={values?.format ?? "routine-tracker"}
            error={e.format}
            hint="Routine Tracker: this service's own CSV or JSON export. Loop Habit Tracker: its export .zip or Checkmarks.csv. Daylio: its CSV export."
            options={formats}
          />
          <Field
            name="file"
            type="file"
            label="File"
            accept=".csv,.json,.zip,text/csv,application/json,application/zip"
            error={e.file ?? e._form}
            hint={`A .csv, .json or .zip file of at most ${maxKb} KB and ${maxRows} rows. Up to ${partDays} changed days are written in one all-or-nothing step; a longer history is written in steps, and importing the same file again finishes an interrupted one.`}
            required
          />
          <Button variant="primary">Import</Button>
        </form>
      </section>
    </>
  );
}

function AccountSections(p: SettingsPageProps) {
  return (
    <>
      <PasswordSection {...p} />
      <DeleteSection {...p} />
    </>
  );
}

function PasswordSection(p: SettingsPageProps) {
  const { errors: pw, values, onSubmit } = useFormCheck(p, "password", checkPassword);
  // Checked by default (issue #19); a refused form keeps what the member chose.
  const endTokens = values ? values.endTokensAndApps === "on" : true;
  return (
    <>
      <section class="card settings-section" id="password" aria-labelledby="password-h">
        <h2 id="password-h">Change password</h2>
        <form method="post" action="/app/settings/password#password" novalidate onSubmit={onSubmit}>
          <CsrfField token={p.csrfToken} />
          <input type="hidden" name="username" value={p.member.username} autocomplete="username" />
          <Field
            name="currentPassword"
            type="password"
            label="Current password"
            autocomplete="current-password"
            error={pw.currentPassword}
            required
          />
          <Field
            name="newPassword"
            type="password"
            label="New password"
            autocomplete="new-password"
            hint="8 to 256 characters, not one of the most common passwords. Every other signed-in device is signed out."
            error={pw.newPassword ?? pw._form}
            minLength={8}
            maxLength={256}
            required
          />
          <label class="check">
            <input type="checkbox" name="endTokensAndApps" value="on" checked={endTokens} />
            Also end every API token and connected app
          </label>
          <p class="hint">
            Scripts and apps then need a new token or a new approval. Leave it on if someone else
            may have had your password.
          </p>
          <Button variant="primary">Change password</Button>
        </form>
      </section>
    </>
  );
}

function DeleteSection(p: SettingsPageProps) {
  const { errors: del, values, onSubmit } = useFormCheck(p, "delete", checkDelete);
  return (
    <>
      <section
        class="card settings-section danger-zone"
        id="delete-account"
        aria-labelledby="del-h"
      >
        <h2 id="del-h">Delete account</h2>
        <p>
          This removes your account and your whole record: columns, days, notes, API tokens and
          connected apps. It cannot be undone; <a href="#export">export</a>{" "}
          first if you want a copy.
        </p>
        <form
          method="post"
          action="/app/settings/delete#delete-account"
          novalidate
          onSubmit={onSubmit}
        >
          <CsrfField token={p.csrfToken} />
          <Field
            name="confirmUsername"
            label={`Type your username (${p.member.username}) to confirm`}
            value={values?.confirmUsername}
            autocomplete="off"
            spellcheck={false}
            error={del.confirmUsername ?? del._form}
            required
          />
          <Button variant="danger">Delete account</Button>
        </form>
      </section>
    </>
  );
}

/** The Settings page's body: the island's markup (the route wraps it in the app shell). */
export function SettingsPage(p: SettingsPageProps) {
  // Marks the body once the island is live (effects never run on the server), without a render.
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => root.current?.setAttribute("data-hydrated", "true"), []);
  return (
    <div class="settings" ref={root}>
      <h1>Settings</h1>
      <nav class="settings-toc" aria-label="Settings sections">
        <ul>
          {sectionsOf(p).map(([id, label]) => (
            <li key={id}>
              <a href={`#${id}`}>{label}</a>
            </li>
          ))}
          <li>
            <a href="/app/settings/reminders">Reminders</a>
          </li>
          <li>
            <a href="/membership">Membership</a>
          </li>
        </ul>
      </nav>
      <ProfileSection {...p} />
      <PreferencesSection
        {...p}
        failed={p.failed?.form === "preferences" ? p.failed : undefined}
      />
      <TokensSection {...p} />
      <AppsSection {...p} />
      <DataSections {...p} />
      {p.email ? <EmailSection csrfToken={p.csrfToken} {...p.email} /> : null}
      <AccountSections {...p} />
      <section class="card settings-section" id="membership" aria-labelledby="member-h">
        <h2 id="member-h">Membership</h2>
        <p>
          Tracking, the API and MCP are free. The paid tier deepens the coach.{" "}
          <a href="/membership">See membership</a>.
        </p>
      </section>
    </div>
  );
}
