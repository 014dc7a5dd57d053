/**
 * Settings → Preferences (issue #25): the theme, the first day of the week, how dates are
 * written, and the units of new columns. A plain `<form method="post">` to
 * `/app/settings/preferences` (`updateProfile`), so it works without JavaScript; its props are
 * plain data, so the Settings island can render it as it is.
 *
 * Units convert nothing already logged (defect 5, decided in issue #25): a column's values are
 * stored, exported and read by the API and the coach in the column's own unit, which the member
 * typed; converting them only on the pages would make a page disagree with the export, and turning
 * a typed "155 lb" back into kilograms rounds (70.3 kg → 155.0 lb → 70.31 kg). So the setting says
 * exactly what it does: the unit of the templates offered on Columns.
 */

import type { DateLocale, Theme, Units } from "../../lib/accounts/accounts.ts";
import { dateTimeText } from "../dates.ts";
import { Button, CsrfField, Field } from "../form.tsx";

/** The member's current preferences (a `Profile`'s fields). */
export interface PreferencesValues {
  theme: Theme;
  weekStartsOn: number;
  locale: DateLocale;
  units: Units;
}

/** Props of `PreferencesSection`. */
export interface PreferencesSectionProps {
  csrfToken: string;
  member: PreferencesValues;
  /** A refused form: its messages by field, and what was sent. */
  failed?: { errors: Record<string, string | undefined>; values?: Record<string, string> };
}

const THEME_CHOICES: { value: Theme; label: string }[] = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

/** 0 = Sunday … 6 = Saturday, the order of JavaScript's `Date.getDay()`. */
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** A fixed example time, so each choice shows what it looks like. */
const SAMPLE_TIME = "2026-11-26T21:00:00Z";

/** An option's text is the example itself (short enough for a phone's select). */
function localeLabel(locale: DateLocale): string {
  return dateTimeText(SAMPLE_TIME, "UTC", locale);
}

function ThemeChoice(p: { current: string; error?: string }) {
  const described = ["f-theme-hint", p.error ? "f-theme-error" : ""].filter(Boolean).join(" ");
  return (
    <fieldset class="theme-choice" aria-describedby={described}>
      <legend>Theme</legend>
      <p class="hint" id="f-theme-hint">System follows this device's light or dark setting.</p>
      {THEME_CHOICES.map((t) => (
        <label class="check" key={t.value}>
          <input type="radio" name="theme" value={t.value} checked={p.current === t.value} />
          {t.label}
        </label>
      ))}
      {p.error ? <span class="field-error" id="f-theme-error">{p.error}</span> : null}
    </fieldset>
  );
}

/** The Preferences section of Settings. */
export function PreferencesSection(p: PreferencesSectionProps) {
  const e = p.failed?.errors ?? {};
  const v = p.failed?.values ?? {};
  const m = p.member;
  return (
    <section class="card settings-section" id="preferences" aria-labelledby="preferences-h">
      <h2 id="preferences-h">Preferences</h2>
      <form method="post" action="/app/settings/preferences#preferences" novalidate>
        <CsrfField token={p.csrfToken} />
        <ThemeChoice current={v.theme ?? m.theme} error={e.theme} />
        <Field
          name="weekStartsOn"
          label="First day of the week"
          value={v.weekStartsOn ?? String(m.weekStartsOn)}
          error={e.weekStartsOn}
          hint="Where weeks begin on the pages: History's calendar and weekly charts. Weekly goals count Monday to Sunday, as the API and the coach do."
          options={WEEKDAYS.map((label, day) => ({ value: String(day), label }))}
        />
        <Field
          name="locale"
          label="Dates"
          value={v.locale ?? m.locale}
          error={e.locale}
          hint="Day first or month first: how every page writes a date and a time."
          options={(["en-GB", "en-US"] as const).map((l) => ({ value: l, label: localeLabel(l) }))}
        />
        <Field
          name="units"
          label="Units of new columns"
          value={v.units ?? m.units}
          error={e.units}
          hint="The unit of the Weight template on Columns. It converts nothing you logged: each column keeps the unit it was made with, and its values read as you entered them, here, in exports, the API and the coach."
          options={[
            { value: "metric", label: "Metric (kg)" },
            { value: "imperial", label: "Imperial (lb)" },
          ]}
        />
        <Button variant="primary">Save preferences</Button>
      </form>
    </section>
  );
}
