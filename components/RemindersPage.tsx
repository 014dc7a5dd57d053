/**
 * The reminder settings (`/app/settings/reminders`, issue #24): reminder times "if today is not
 * logged" (of the whole day or one column), a streak-at-risk nudge, this device's push switch and
 * "Send a test reminder". The Reminders island (islands/Reminders.tsx, issue #25): rendered on the
 * server inside the app shell, where the times form and the test button are plain POSTs that work
 * without JavaScript; then hydrated with the same props (`data-props`) to add the push switch
 * (it needs the browser's Push API: a service worker and `PushManager.subscribe`), the test
 * reminder answered in place, and the form's inline check. So its props are plain JSON and it
 * imports nothing from lib/ but types.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import type { Profile } from "../lib/record/store.ts";
import { Button, CsrfField, Field, Notice } from "./form.tsx";
import { checkReminders } from "./reminders/form_check.ts";
import {
  isSubscribed,
  postJson,
  pushSupported,
  subscribe,
  unsubscribe,
} from "./reminders/push_client.ts";

/** One reminder row as shown. */
export interface ReminderRow {
  at: string;
  column: string | null;
}

/** Props of `RemindersPage`. */
export interface RemindersPageProps {
  member: Profile;
  csrfToken: string;
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
  /** Reminder times a member may keep (lib/notify/reminders.ts `MAX_REMINDERS`). */
  maxReminders: number;
}

/** The times form's state after an inline check refused it: the errors and what was typed. */
interface Refused {
  errors: Record<string, string>;
  values: Record<string, string>;
}

/** "Send reminders by", when the service sends e-mail. */
function ChannelField(p: RemindersPageProps & { refused: Refused | null }) {
  if (!p.mailConfigured) return null;
  return (
    <Field
      name="channel"
      label="Send reminders by"
      value={p.refused?.values.channel ?? p.channel ?? "push"}
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

function ReminderRows(p: RemindersPageProps & { refused: Refused | null }) {
  const typed = (name: string, given: string) => p.refused?.values[name] ?? given;
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
          <Field
            name={`at${i}`}
            type="time"
            label={`Time ${i + 1}`}
            value={typed(`at${i}`, r.at)}
            error={p.refused?.errors[`at${i}`]}
          />
          <Field
            name={`column${i}`}
            label={`if not logged (${i + 1})`}
            value={typed(`column${i}`, r.column ?? "")}
            options={options}
          />
        </div>
      ))}
    </fieldset>
  );
}

/** A form's values as strings. */
function valuesOf(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) out[name] = String(value);
  return out;
}

/**
 * The times form's inline check once hydrated: `onSubmit` stops a form the check refuses, keeps
 * what was typed and focuses the first field in error (WCAG 3.3.1 Error Identification).
 */
function useRemindersCheck(maxReminders: number) {
  const [refused, setRefused] = useState<Refused | null>(null);
  const onSubmit = (e: Event) => {
    const el = e.currentTarget as HTMLFormElement;
    const values = valuesOf(el);
    const errors = checkReminders(values, maxReminders);
    const first = Object.keys(errors)[0];
    if (first === undefined) return setRefused(null);
    e.preventDefault();
    setRefused({ errors, values });
    setTimeout(() => el.querySelector<HTMLElement>(`[name="${first}"]`)?.focus());
  };
  return { refused, onSubmit };
}

function TimesSection(p: RemindersPageProps) {
  const { refused, onSubmit } = useRemindersCheck(p.maxReminders);
  const error = refused ? Object.values(refused.errors)[0] : p.error;
  return (
    <section class="card settings-section" id="times" aria-labelledby="times-h">
      <h2 id="times-h">Reminder times</h2>
      <p>
        Times are in your time zone ({p.member.timezone}). A reminder is sent only if that day (or
        that column) is not logged yet. {p.next ? `Next: ${p.next}.` : "No reminder is set."}
      </p>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <form method="post" action="/app/settings/reminders#times" novalidate onSubmit={onSubmit}>
        <CsrfField token={p.csrfToken} />
        <ReminderRows {...p} refused={refused} />
        <Field
          name="streakNudgeAt"
          type="time"
          label="Streak-at-risk nudge at"
          value={refused?.values.streakNudgeAt ?? p.streakNudgeAt ?? ""}
          error={refused?.errors.streakNudgeAt}
          hint="Names each daily streak of two days or more that ends unless you log today. Empty: off."
        />
        <ChannelField {...p} refused={refused} />
        <Button variant="primary">Save reminders</Button>
      </form>
    </section>
  );
}

/** "N devices receive reminders." */
function devicesText(n: number): string {
  return n === 0
    ? "No device receives reminders yet."
    : `${n} ${n === 1 ? "device receives" : "devices receive"} reminders.`;
}

/**
 * This device's push switch, once hydrated in a browser with the Push API: whether it is
 * subscribed (null until known), what happened last, and the member's device count.
 */
function usePushSwitch(p: RemindersPageProps) {
  const [live, setLive] = useState(false);
  const [supported, setSupported] = useState(false);
  const [on, setOn] = useState<boolean | null>(null);
  const [status, setStatus] = useState("");
  const [devices, setDevices] = useState(p.devices);
  useEffect(() => {
    setLive(true);
    if (!pushSupported()) return;
    setSupported(true);
    isSubscribed().then(setOn, () => setOn(false));
  }, []);
  const turnOn = async () => {
    try {
      setDevices(await subscribe(p.vapidPublicKey, p.csrfToken));
      setOn(true);
      setStatus("Notifications are on for this device.");
    } catch (err) {
      setStatus(`Could not turn notifications on: ${(err as Error).message}`);
    }
  };
  const turnOff = async () => {
    try {
      if (await unsubscribe(p.csrfToken)) setDevices((n) => Math.max(0, n - 1));
      setOn(false);
      setStatus("Notifications are off for this device.");
    } catch (err) {
      setStatus(`Could not turn notifications off: ${(err as Error).message}`);
    }
  };
  return { live, supported, on, status, setStatus, devices, turnOn, turnOff };
}

/** Once hydrated, the test reminder is sent in place; its answer shows in the status line. */
function useTestReminder(csrf: string, show: (text: string) => void) {
  return async (e: Event) => {
    e.preventDefault();
    show("Sending a test reminder…");
    try {
      const out = await postJson("/app/settings/reminders/test", { csrf });
      show((out as { message: string }).message);
    } catch (err) {
      show(`Could not send a test reminder: ${(err as Error).message}`);
    }
  };
}

function DevicesSection(p: RemindersPageProps) {
  const push = usePushSwitch(p);
  const onTest = useTestReminder(p.csrfToken, push.setStatus);
  return (
    <section class="card settings-section" id="devices" aria-labelledby="devices-h">
      <h2 id="devices-h">Notifications on your devices</h2>
      <p data-devices>{devicesText(push.devices)}</p>
      <div
        data-push
        hidden={!push.supported}
        data-vapid-key={p.vapidPublicKey}
        data-csrf={p.csrfToken}
      >
        <button type="button" class="button" hidden={push.on !== false} onClick={push.turnOn}>
          Turn on notifications here
        </button>
        <button type="button" class="button" hidden={push.on !== true} onClick={push.turnOff}>
          Turn off notifications here
        </button>
      </div>
      <p role="status" data-push-status>{push.status}</p>
      <noscript>
        <p>
          Turning notifications on needs JavaScript in this browser; reminders by e-mail do not.
        </p>
      </noscript>
      <form
        method="post"
        action="/app/settings/reminders/test#devices"
        onSubmit={push.live ? onTest : undefined}
      >
        <CsrfField token={p.csrfToken} />
        <Button>Send a test reminder</Button>
      </form>
    </section>
  );
}

/** The Reminders page's body: the island's markup (the route wraps it in the app shell). */
export function RemindersPage(p: RemindersPageProps) {
  // Marks the body once the island is live (effects never run on the server), without a render.
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => root.current?.setAttribute("data-hydrated", "true"), []);
  return (
    <div class="reminders" ref={root}>
      <h1>Reminders</h1>
      <p>
        <a href="/app/settings">Back to Settings</a>
      </p>
      <TimesSection {...p} />
      <DevicesSection {...p} />
    </div>
  );
}
