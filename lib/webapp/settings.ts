/**
 * What the Settings page (`/app/settings`, issue #11 §6) shows and how its forms are read. It runs
 * nothing: the page's controllers (routes/app/settings.tsx, routes/app/settings/*) run every change
 * as the action the REST API runs (`runPageAction` over the `/api/proxy`, `/api/tokens` and
 * `/api/auth` tables). Form fields arrive as strings; the schemas here turn them into those
 * actions' inputs and name the field a message belongs beside.
 */

import { z } from "zod";
import { DATE_LOCALES, Password, THEMES } from "../accounts/accounts.ts";
import { type ApiTokenView, listApiTokens } from "../accounts/api_tokens.ts";
import type { MemberAccess } from "../record/member_access.ts";
import { formatDay, isValidTimeZone, localDay } from "../foundation/dates.ts";
import { AppError } from "../foundation/errors.ts";
import { IMPORT_FORMATS, type ImportFormat, MAX_IMPORT_BYTES } from "../record/import_source.ts";
import { MAX_DAY_START_HOUR, type Profile } from "../record/store.ts";
import { looksLikeZip } from "../record/zip.ts";
import type { GrantSummary } from "../oauth/grants.ts";
import { fieldErrors, type FormErrors } from "./form_errors.ts";

export { fieldErrors, type FormErrors };

/** What the page shows besides the profile. */
export interface SettingsData {
  tokens: ApiTokenView[];
  grants: GrantSummary[];
}

/**
 * The member's API tokens, as `/api/tokens` `list` shows them: a read, so the page spends no
 * `tokens` quota on showing them (the connected apps come from the `listGrants` action).
 */
export async function loadTokens(
  deps: { kv: Deno.Kv; access: MemberAccess },
  memberId: string,
): Promise<ApiTokenView[]> {
  return await listApiTokens(deps.kv, memberId, deps.access.tokens);
}

/** Every IANA zone the runtime knows (offered in a `<datalist>`). */
export function timeZoneNames(): string[] {
  return Intl.supportedValuesOf("timeZone");
}

/** The profile form: every field is sent (the page shows them all). */
export const ProfileForm = z.object({
  displayName: z.string().trim().min(1, "Enter a display name.").max(80, "At most 80 characters."),
  timezone: z.string().trim().min(1, "Enter a time zone, such as Europe/Paris.").refine(
    isValidTimeZone,
    { error: (iss) => `"${String(iss.input).slice(0, 64)}" is not a time zone we know.` },
  ),
  dayStartOffsetHours: z.string().trim().regex(/^\d{1,2}$/, "Choose an hour.")
    .transform(Number).pipe(z.int().min(0).max(MAX_DAY_START_HOUR, "Choose an hour.")),
  // Units moved to Preferences (issue #25); a profile form rendered before that still sends them.
  units: z.enum(["metric", "imperial"], "Choose metric or imperial.").optional(),
});

/**
 * The Preferences form (components/settings/PreferencesSection.tsx): every field is sent. Units
 * moved here from the profile form in issue #25, where the setting now says what it affects.
 */
export const PreferencesForm = z.object({
  theme: z.enum(THEMES, "Choose System, Light or Dark."),
  weekStartsOn: z.string().trim().regex(/^[0-6]$/, "Choose a day of the week.").transform(Number),
  locale: z.enum(DATE_LOCALES, "Choose how dates are written."),
  units: z.enum(["metric", "imperial"], "Choose metric or imperial."),
});

/**
 * The field errors of an `updateProfile` the action's own zod check refused (an unknown time zone
 * is reported beside its field, in the page's words).
 */
export function profileErrorsOf(err: z.ZodError, timezone: string): FormErrors {
  const errors = fieldErrors(err);
  if (errors.timezone) errors.timezone = `"${timezone}" is not a time zone we know.`;
  return errors;
}

/**
 * The token form. `nonce` is the form's one-time nonce (a UUID the page printed): sent as the
 * create's `Idempotency-Key`, so a reload or a second click of the same form makes no second token
 * (issue #25). A form without one (a page cached before it) still creates, as before.
 */
export const TokenForm = z.object({
  name: z.string().trim().min(1, "Give the token a name.").max(80, "At most 80 characters."),
  nonce: z.uuid("This form is out of date: reload the page and try again.").optional(),
});

/** The choice of a revoke form: which token or connected app, and whether it was confirmed. */
export const RevokeForm = z.object({
  id: z.string().min(1).max(200),
  confirmed: z.string().optional().transform((v) => v === "yes"),
});

/** UTF-8 text without NUL bytes: what a CSV export is (an image or a spreadsheet is not). */
function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The names the page shows for each import format: short, since a closed drop-down shows one line
 * and a phone cut the longer ones; the form's hint says which file each one means.
 */
export const IMPORT_FORMAT_LABELS: Record<ImportFormat, string> = {
  "routine-tracker": "Routine Tracker CSV",
  "routine-tracker-json": "Routine Tracker JSON",
  loop: "Loop Habit Tracker",
  daylio: "Daylio CSV",
};

/**
 * The import form's text fields: the format, the step, the choice on conflicts (`onConflict`,
 * the preview's radio buttons) and Daylio's mood places `mood:<label>`.
 */
export function importOptionsOf(fields: Record<string, string>) {
  const format = (IMPORT_FORMATS as readonly string[]).includes(fields.format)
    ? fields.format as ImportFormat
    : null;
  if (!format) throw new AppError("invalid_request", "Choose the format of the file.");
  const moodScale: Record<string, number> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name.startsWith("mood:") && /^[1-5]$/.test(value)) moodScale[name.slice(5)] = +value;
  }
  const onConflict = fields.onConflict === "keep" ? "keep" as const : "replace" as const;
  return { format, moodScale, onConflict, commit: fields.step === "commit" };
}

/**
 * The `importRecord` input of an uploaded file: a preview (dry run) or the commit. The file
 * travels as text for CSV and JSON and as base64 for a zip, exactly as a script would send it.
 */
export function importInputOf(
  upload: { bytes: Uint8Array; options: ReturnType<typeof importOptionsOf> },
): Record<string, unknown> {
  const { bytes, options } = upload;
  if (bytes.byteLength === 0) throw new AppError("invalid_request", "Choose a file to import.");
  if (bytes.byteLength > MAX_IMPORT_BYTES) {
    throw new AppError(
      "payload_too_large",
      `The file is larger than ${Math.round(MAX_IMPORT_BYTES / 1024)} KB.`,
    );
  }
  const isZip = looksLikeZip(bytes);
  if (!isZip && !isText(bytes)) {
    throw new AppError(
      "invalid_request",
      "This file is not a CSV or JSON file. Choose the .csv or .json file the app exported (or Loop's .zip export).",
    );
  }
  if (isZip && options.format !== "loop") {
    throw new AppError(
      "invalid_request",
      "A .zip file is only accepted for Loop Habit Tracker: choose the .csv file, or Loop's format.",
    );
  }
  const text = isZip ? "" : new TextDecoder().decode(bytes);
  // Our JSON export chosen under "Routine Tracker CSV": no CSV starts with `{`, so read it as JSON.
  const format = options.format === "routine-tracker" && text.trimStart().startsWith("{")
    ? "routine-tracker-json"
    : options.format;
  const file = isZip
    ? { zipBase64: btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join("")) }
    : format === "routine-tracker-json"
    ? { json: text }
    : { csv: text };
  return {
    format,
    ...file,
    dryRun: !options.commit,
    onConflict: options.onConflict,
    ...(Object.keys(options.moodScale).length ? { moodScale: options.moodScale } : {}),
  };
}

/**
 * The export download's file name, dated by the member's own day at the moment of the export (its
 * zone and day-start hour), not the server's UTC date: an export made in Berlin at 00:30 is named
 * by that new day (#25 defect 10).
 */
export function exportFileName(
  member: Pick<Profile, "timezone" | "dayStartOffsetHours">,
  exportedAt: string,
  format: "csv" | "json",
): string {
  const day = localDay(Date.parse(exportedAt), member.timezone, member.dayStartOffsetHours);
  return `routine-tracker-${formatDay(day)}.${format}`;
}

/**
 * The JSON export's download text: indented, but one line per day. Indenting every value made a
 * three-year record of 13 columns ~530 KB, over the 512 KB an import accepts (MAX_IMPORT_BYTES), so
 * a member's own JSON could not be imported back (#25); one line a day is ~350 KB.
 */
export function exportJsonText(record: { entries: unknown[] } & Record<string, unknown>): string {
  const { entries, ...head } = record;
  const days = entries.map((e) => `    ${JSON.stringify(e)}`).join(",\n");
  const list = entries.length ? `[\n${days}\n  ]` : "[]";
  const top = JSON.stringify(head, null, 2);
  return `${top.slice(0, -2)},\n  "entries": ${list}\n}\n`;
}

/** The password form: the current password, and a new one by the sign-up rule. */
export const PasswordForm = z.object({
  currentPassword: z.string().min(1, "Enter your current password.").max(256),
  newPassword: z.string().pipe(Password),
});

/** The `changePassword` action's input from the form, or the form's field errors. */
export function passwordChangeOf(
  form: Record<string, string>,
): { input: Record<string, unknown> } | { errors: FormErrors } {
  const parsed = PasswordForm.safeParse(form);
  if (!parsed.success) return { errors: fieldErrors(parsed.error) };
  // An HTML checkbox sends its field only when checked (HTML "constructing the entry list").
  return { input: { ...parsed.data, endTokensAndApps: form.endTokensAndApps === "on" } };
}

/**
 * The `deleteAccount` action's input once the typed username matches the member's, else the
 * field's error.
 */
export function deleteConfirmationOf(
  form: Record<string, string>,
  username: string,
): { input: { confirmUsername: string } } | { errors: FormErrors } {
  const typed = (form.confirmUsername ?? "").trim();
  if (typed.toLowerCase() !== username.toLowerCase()) {
    return { errors: { confirmUsername: `Type your username, ${username}, to confirm.` } };
  }
  return { input: { confirmUsername: typed } };
}
