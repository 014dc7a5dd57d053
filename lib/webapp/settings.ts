/**
 * What the Settings page (`/app/settings`, issue #11 §6) loads and how its forms are read. Every
 * action goes through the function the REST API runs — `runProxyAction` for profile, export,
 * import and connected apps (so a page and a script are validated alike), the API-token functions
 * `/api/tokens` calls — never a second implementation. Form fields arrive as strings; the schemas
 * here turn them into those functions' inputs and name the field a message belongs beside.
 */

import type { PasswordGuesses } from "../accounts/password_guesses.ts";
import { z } from "zod";
import { changePassword, deleteAccount } from "../accounts/account_changes.ts";
import { Password } from "../accounts/accounts.ts";
import { type ApiTokenView, listApiTokens } from "../accounts/api_tokens.ts";
import type { Clock } from "../foundation/clock.ts";
import type { Config } from "../foundation/config.ts";
import type { MemberAccess } from "../record/member_access.ts";
import { isValidTimeZone } from "../foundation/dates.ts";
import { AppError } from "../foundation/errors.ts";
import { IMPORT_FORMATS, type ImportFormat, MAX_IMPORT_BYTES } from "../record/import_source.ts";
import type { ImportResult } from "../record/import_plan.ts";
import { MAX_DAY_START_HOUR } from "../record/store.ts";
import { looksLikeZip } from "../record/zip.ts";
import type { GrantSummary } from "../oauth/grants.ts";

/** Errors of a form by field name (`_form`: not tied to one field). */
export type FormErrors = Record<string, string>;

/** What the page shows besides the profile. */
export interface SettingsData {
  tokens: ApiTokenView[];
  grants: GrantSummary[];
}

/**
 * Runs a `/api/proxy` action as the page's member: the route passes `runPageAction`
 * (lib/http/page_auth.ts), the very function the REST route runs, under the same rate limit.
 */
export type RunAction = (body: { action: string } & Record<string, unknown>) => Promise<unknown>;

/** The member's API tokens and connected apps. */
export async function loadSettings(
  deps: { kv: Deno.Kv; access: MemberAccess },
  memberId: string,
  run: RunAction,
): Promise<SettingsData> {
  const [tokens, grants] = await Promise.all([
    listApiTokens(deps.kv, memberId, deps.access.tokens),
    run({ action: "listGrants" }) as Promise<{ grants: GrantSummary[] }>,
  ]);
  return { tokens, grants: grants.grants };
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
  units: z.enum(["metric", "imperial"], "Choose metric or imperial."),
});

/** The form's fields with the first message of each, from a zod error. */
export function fieldErrors(error: z.ZodError): FormErrors {
  const out: FormErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "_form");
    out[field] ??= issue.message;
  }
  return out;
}

/**
 * Saves the profile through `updateProfile`. Returns the field errors (an unknown time zone is
 * reported beside its field, as `updateProfile`'s own zod check would refuse it) or null.
 */
export async function saveProfile(
  run: RunAction,
  form: Record<string, string>,
): Promise<FormErrors | null> {
  const parsed = ProfileForm.safeParse(form);
  if (!parsed.success) return fieldErrors(parsed.error);
  try {
    await run({ action: "updateProfile", ...parsed.data });
    return null;
  } catch (err) {
    if (err instanceof z.ZodError) {
      const errors = fieldErrors(err);
      if (errors.timezone) {
        errors.timezone = `"${parsed.data.timezone}" is not a time zone we know.`;
      }
      return errors;
    }
    throw err;
  }
}

/** The token form. */
export const TokenForm = z.object({
  name: z.string().trim().min(1, "Give the token a name.").max(80, "At most 80 characters."),
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

/** The names the page shows for each import format. */
export const IMPORT_FORMAT_LABELS: Record<ImportFormat, string> = {
  "routine-tracker": "Routine Tracker CSV (our own export)",
  loop: "Loop Habit Tracker (CSV export zip, or its Checkmarks.csv)",
  daylio: "Daylio (CSV export)",
};

/** The import form's text fields: the format, the step, and Daylio's mood places `mood:<label>`. */
export function importOptionsOf(fields: Record<string, string>) {
  const format = (IMPORT_FORMATS as readonly string[]).includes(fields.format)
    ? fields.format as ImportFormat
    : null;
  if (!format) throw new AppError("invalid_request", "Choose the format of the file.");
  const moodScale: Record<string, number> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name.startsWith("mood:") && /^[1-5]$/.test(value)) moodScale[name.slice(5)] = +value;
  }
  return { format, moodScale, commit: fields.step === "commit" };
}

/**
 * Runs `importRecord` on an uploaded file: a preview (dry run) or the commit. The file travels as
 * text for CSV and as base64 for a zip, exactly as a script would send it.
 */
export async function runImport(
  run: RunAction,
  upload: { bytes: Uint8Array; options: ReturnType<typeof importOptionsOf> },
): Promise<ImportResult> {
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
      "This file is not a CSV file. Choose the .csv file the app exported (or Loop's .zip export).",
    );
  }
  if (isZip && options.format !== "loop") {
    throw new AppError(
      "invalid_request",
      "A .zip file is only accepted for Loop Habit Tracker: choose the .csv file, or Loop's format.",
    );
  }
  const file = isZip
    ? { zipBase64: btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join("")) }
    : { csv: new TextDecoder().decode(bytes) };
  return await run({
    action: "importRecord",
    format: options.format,
    ...file,
    dryRun: !options.commit,
    ...(Object.keys(options.moodScale).length ? { moodScale: options.moodScale } : {}),
  }) as ImportResult;
}

/** The password form: the current password, and a new one by the sign-up rule. */
export const PasswordForm = z.object({
  currentPassword: z.string().min(1, "Enter your current password.").max(256),
  newPassword: z.string().pipe(Password),
});

/**
 * Changes the password through `changePassword` (the `/api/auth` action's function): this session
 * stays, every other one is signed out. Returns the field errors (a wrong current password beside
 * its field) or null.
 */
export async function changePasswordFromForm(
  deps: { kv: Deno.Kv; clock: Clock; config: Config; guesses: PasswordGuesses },
  who: { memberId: string; sessionToken: string },
  form: Record<string, string>,
): Promise<FormErrors | null> {
  const parsed = PasswordForm.safeParse(form);
  if (!parsed.success) return fieldErrors(parsed.error);
  try {
    await changePassword(deps.kv, {
      clock: deps.clock,
      memberId: who.memberId,
      currentPassword: parsed.data.currentPassword,
      newPassword: parsed.data.newPassword,
      keepSessionToken: who.sessionToken,
      iterations: deps.config.passwordIterations,
      // An HTML checkbox sends its field only when checked (HTML "constructing the entry list").
      endTokensAndApps: form.endTokensAndApps === "on",
      guesses: deps.guesses,
    });
    return null;
  } catch (err) {
    if (err instanceof AppError && err.code === "invalid_credentials") {
      return { currentPassword: "That is not your current password." };
    }
    throw err;
  }
}

/**
 * Deletes the account through `deleteAccount` once the typed username matches. Returns the field
 * error or null (deleted).
 */
export async function deleteAccountFromForm(
  deps: { kv: Deno.Kv },
  who: { memberId: string; username: string },
  form: Record<string, string>,
): Promise<FormErrors | null> {
  const typed = (form.confirmUsername ?? "").trim();
  if (typed.toLowerCase() !== who.username.toLowerCase()) {
    return { confirmUsername: `Type your username, ${who.username}, to confirm.` };
  }
  await deleteAccount(deps.kv, { memberId: who.memberId, confirmUsername: typed });
  return null;
}
