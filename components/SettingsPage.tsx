/**
 * The Settings page (`/app/settings`, issue #11 §6): profile, API tokens (a new token shown once),
 * connected apps, export, import, password, account deletion, membership. Every form is a plain
 * POST (or, for the export download, a GET) that works without JavaScript; `/static/settings.js`
 * only adds the Copy button, a confirm() before revoking and the device's time zone hint.
 */

import { EmailSection, type EmailSectionProps } from "./settings/EmailSection.tsx";
import type { ApiTokenView, CreatedApiToken } from "../lib/accounts/api_tokens.ts";
import type { GrantSummary } from "../lib/oauth/grants.ts";
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from "../lib/record/import_source.ts";
import { IMPORT_PART_DAYS } from "../lib/record/import_plan.ts";
import type { Profile } from "../lib/record/store.ts";
import { type FormErrors, IMPORT_FORMAT_LABELS } from "../lib/webapp/settings.ts";
import { AppShell } from "./AppShell.tsx";
import { PreferencesSection } from "./settings/PreferencesSection.tsx";
import { dateText, dateTimeText } from "./dates.ts";
import { Button, CsrfField, Field } from "./form.tsx";

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
  flash?: string | null;
  tokens: ApiTokenView[];
  grants: GrantSummary[];
  timeZones: string[];
  /** A token just created: shown here, this once. */
  newToken?: CreatedApiToken;
  failed?: SettingsFormState;
  /** Settings → E-mail (issue #24; components/settings/EmailSection.tsx). */
  email?: Omit<EmailSectionProps, "csrfToken">;
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

/** A date (and time) in the member's own time zone. */
export function whenText(iso: string | null, timeZone: string, withTime = false): string {
  return withTime ? dateTimeText(iso, timeZone) : dateText(iso, timeZone);
}

function hourLabel(h: number): string {
  if (h === 0) return "Midnight (00:00)";
  if (h === 12) return "Noon (12:00)";
  return `${h} a.m. (${String(h).padStart(2, "0")}:00)`;
}

function errorsOf(p: SettingsPageProps, form: SettingsFormState["form"]): FormErrors {
  return p.failed?.form === form ? p.failed.errors : {};
}

function ProfileSection(p: SettingsPageProps) {
  const e = errorsOf(p, "profile");
  const v = p.failed?.form === "profile" ? p.failed.values ?? {} : {};
  const m = p.member;
  return (
    <section class="card settings-section" id="profile" aria-labelledby="profile-h">
      <h2 id="profile-h">Profile</h2>
      <form method="post" action="/app/settings/profile#profile" novalidate>
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
              <span data-device-zone hidden>
                This device is in <button type="button" class="link-button" data-use-zone></button>.
              </span>
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

function NewToken({ token }: { token: CreatedApiToken }) {
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
        <button type="button" data-copy="new-token" hidden>Copy</button>
      </div>
      <p class="hint" data-copy-status aria-live="polite"></p>
    </div>
  );
}

function TokensSection(p: SettingsPageProps) {
  const e = errorsOf(p, "token");
  const tz = p.member.timezone;
  return (
    <section class="card settings-section" id="tokens" aria-labelledby="tokens-h">
      <h2 id="tokens-h">API tokens</h2>
      <p>
        A token lets a script or an AI agent <strong>read</strong>{" "}
        your record (never change it). See <a href="/docs/authentication">how to use one</a>.
      </p>
      {p.newToken ? <NewToken token={p.newToken} /> : null}
      <form method="post" action="/app/settings/tokens#tokens" class="inline-create" novalidate>
        <CsrfField token={p.csrfToken} />
        <input type="hidden" name="scope" value="read" />
        <Field
          name="name"
          label="Token name"
          value={p.failed?.form === "token" ? p.failed.values?.name : ""}
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
                    <code>{t.prefixHint}…</code> · created {whenText(t.createdAt, tz)} · last used
                    {" "}
                    {whenText(t.lastUsedAt, tz, true)}
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
  return (
    <form method="post" action={props.action} class="inline-form" data-confirm={props.question}>
      <CsrfField token={props.csrfToken} />
      <input type="hidden" name="id" value={props.id} />
      <input type="hidden" name="confirmed" value="" />
      <Button variant="danger" aria-describedby={props.describedBy}>Revoke</Button>
    </form>
  );
}

function AppsSection(p: SettingsPageProps) {
  const tz = p.member.timezone;
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
                    {g.redirectHost} · scopes: {g.scope} · approved {whenText(g.createdAt, tz)}
                    {g.refreshedAt
                      ? ` · last renewed its access ${whenText(g.refreshedAt, tz, true)}`
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
  const e = errorsOf(p, "import");
  const kb = Math.round(MAX_IMPORT_BYTES / 1024);
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
        >
          <CsrfField token={p.csrfToken} />
          <Field
            name="format"
            label="Format"
            value={p.failed?.form === "import" ? p.failed.values?.format : "routine-tracker"}
            error={e.format}
            options={Object.entries(IMPORT_FORMAT_LABELS).map(([value, label]) => ({
              value,
              label,
            }))}
          />
          <Field
            name="file"
            type="file"
            label="File"
            accept=".csv,.json,.zip,text/csv,application/json,application/zip"
            error={e.file ?? e._form}
            hint={`A .csv or .json file (Loop: its export .zip or Checkmarks.csv) of at most ${kb} KB and ${MAX_IMPORT_ROWS} rows. Up to ${IMPORT_PART_DAYS} changed days are written in one all-or-nothing step; a longer history is written in steps, and importing the same file again finishes an interrupted one.`}
            required
          />
          <Button variant="primary">Import</Button>
        </form>
      </section>
    </>
  );
}

function AccountSections(p: SettingsPageProps) {
  const pw = errorsOf(p, "password");
  // Checked by default (issue #19); a refused form keeps what the member chose.
  const endTokens = p.failed?.form === "password"
    ? p.failed.values?.endTokensAndApps === "on"
    : true;
  const del = errorsOf(p, "delete");
  return (
    <>
      <section class="card settings-section" id="password" aria-labelledby="password-h">
        <h2 id="password-h">Change password</h2>
        <form method="post" action="/app/settings/password#password" novalidate>
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
        <form method="post" action="/app/settings/delete#delete-account" novalidate>
          <CsrfField token={p.csrfToken} />
          <Field
            name="confirmUsername"
            label={`Type your username (${p.member.username}) to confirm`}
            value={p.failed?.form === "delete" ? p.failed.values?.confirmUsername : undefined}
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

/** The Settings page. */
export function SettingsPage(p: SettingsPageProps) {
  return (
    <AppShell
      title="Settings"
      member={p.member}
      active="settings"
      csrfToken={p.csrfToken}
      flash={p.flash}
    >
      <div class="settings">
        <h1>Settings</h1>
        <nav class="settings-toc" aria-label="Settings sections">
          <ul>
            {SECTIONS.map(([id, label]) => (
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
      <script src="/static/settings.js" defer></script>
    </AppShell>
  );
}
