/**
 * The reminder settings (`/app/settings/reminders`, issue #24): reminder times "if today is not
 * logged" (of the whole day or one column), a streak-at-risk nudge, this device's push switch and
 * "Send a test reminder". The times form and the test button
 * are plain POSTs that work without JavaScript; `/static/reminders.js` adds the push switch, which
 * needs the browser's Push API (a service worker and `PushManager.subscribe`).
 */

import type { Profile } from "../lib/record/store.ts";
import { AppShell } from "./AppShell.tsx";
import { Button, CsrfField, Field, Notice } from "./form.tsx";

/** One reminder row as shown. */
export interface ReminderRow {
  at: string;
  column: string | null;
}

/** Props of `RemindersPage`. */
export interface RemindersPageProps {
  member: Profile;
  csrfToken: string;
  flash?: string | null;
  reminders: ReminderRow[];
  streakNudgeAt: string | null;
  /** When the next reminder is due, in words in the member's zone; null when none. */
  next: string | null;
  devices: number;
  vapidPublicKey: string;
  columns: { key: string; label: string }[];
  /** A failed save: its message. */
  error?: string;
  /** How reminders go out (issue #24): push, email or both. */
  channel?: "push" | "email" | "both";
  /** Whether the service sends e-mail (`SMTP_URL`). */
  mailConfigured?: boolean;
  /** The member's verified address, if any. */
  email?: string | null;
}

/** "Send reminders by", when the service sends e-mail. */
function ChannelField(p: RemindersPageProps) {
  if (!p.mailConfigured) return null;
  return (
    <Field
      name="channel"
      label="Send reminders by"
      value={p.channel ?? "push"}
      options={[
        { value: "push", label: "Notifications on my devices" },
        { value: "email", label: "E-mail" },
        { value: "both", label: "Both" },
      ]}
      hint={p.email
        ? `E-mail goes to ${p.email}.`
        : "E-mail needs a verified address: add one in Settings → E-mail."}
    />
  );
}

/** Rows shown: the reminders, then empty ones to add up to three more. */
export const EXTRA_ROWS = 2;

function ReminderRows(p: RemindersPageProps) {
  const rows: ReminderRow[] = [...p.reminders];
  for (let i = 0; i < EXTRA_ROWS; i++) rows.push({ at: "", column: null });
  const options = [
    { value: "", label: "anything" },
    ...p.columns.map((c) => ({ value: c.key, label: c.label })),
  ];
  return (
    <fieldset>
      <legend>Remind me at</legend>
      <p class="hint">Leave a time empty to remove that reminder.</p>
      {rows.map((r, i) => (
        <div class="row" key={i}>
          <Field name={`at${i}`} type="time" label={`Time ${i + 1}`} value={r.at} />
          <Field
            name={`column${i}`}
            label={`if not logged (${i + 1})`}
            value={r.column ?? ""}
            options={options}
          />
        </div>
      ))}
    </fieldset>
  );
}

function TimesSection(p: RemindersPageProps) {
  return (
    <section class="card settings-section" id="times" aria-labelledby="times-h">
      <h2 id="times-h">Reminder times</h2>
      <p>
        Times are in your time zone ({p.member.timezone}). A reminder is sent only if that day (or
        that column) is not logged yet. {p.next ? `Next: ${p.next}.` : "No reminder is set."}
      </p>
      {p.error ? <Notice kind="error">{p.error}</Notice> : null}
      <form method="post" action="/app/settings/reminders#times" novalidate>
        <CsrfField token={p.csrfToken} />
        <ReminderRows {...p} />
        <Field
          name="streakNudgeAt"
          type="time"
          label="Streak-at-risk nudge at"
          value={p.streakNudgeAt ?? ""}
          hint="Names each daily streak of two days or more that ends unless you log today. Empty: off."
        />
        <ChannelField {...p} />
        <Button variant="primary">Save reminders</Button>
      </form>
    </section>
  );
}

function DevicesSection(p: RemindersPageProps) {
  return (
    <section class="card settings-section" id="devices" aria-labelledby="devices-h">
      <h2 id="devices-h">Notifications on your devices</h2>
      <p data-devices>
        {p.devices === 0
          ? "No device receives reminders yet."
          : `${p.devices} ${p.devices === 1 ? "device receives" : "devices receive"} reminders.`}
      </p>
      <div data-push hidden data-vapid-key={p.vapidPublicKey} data-csrf={p.csrfToken}>
        <button type="button" class="button" data-push-on>Turn on notifications here</button>
        <button type="button" class="button" data-push-off hidden>
          Turn off notifications here
        </button>
        <p role="status" data-push-status></p>
      </div>
      <noscript>
        <p>
          Turning notifications on needs JavaScript in this browser; reminders by e-mail do not.
        </p>
      </noscript>
      <form method="post" action="/app/settings/reminders/test#devices">
        <CsrfField token={p.csrfToken} />
        <Button>Send a test reminder</Button>
      </form>
    </section>
  );
}

/** The page. */
export function RemindersPage(p: RemindersPageProps) {
  return (
    <AppShell
      title="Reminders"
      member={p.member}
      active="settings"
      csrfToken={p.csrfToken}
      flash={p.flash}
    >
      <h1>Reminders</h1>
      <p>
        <a href="/app/settings">Back to Settings</a>
      </p>
      <TimesSection {...p} />
      <DevicesSection {...p} />
      <script src="/static/reminders.js" defer></script>
    </AppShell>
  );
}
