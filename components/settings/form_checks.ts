/**
 * The Settings forms' inline checks (issue #25): run in the browser by the hydrated island before
 * a form is sent, with the server's own messages (lib/webapp/settings.ts, lib/accounts Password),
 * so a mistake shows beside its field without a round trip. The server checks every form again:
 * these only save a trip, they decide nothing (OWASP Input Validation: server-side is the control).
 * Plain functions over the form's values, no lib/ import, so the island bundle stays small.
 */

/** A form's values (as `FormData` gives them) → its errors by field; `{}` when it may be sent. */
export type FormCheck = (
  values: Record<string, string>,
  ctx: { username: string },
) => Record<string, string>;

/** Whether the browser knows `zone` as an IANA time zone (what `isValidTimeZone` asks). */
function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A trimmed text of 1 to `max` characters, or its message. */
function text(value: string | undefined, empty: string, max = 80): string | null {
  const v = (value ?? "").trim();
  if (v.length === 0) return empty;
  if (v.length > max) return `At most ${max} characters.`;
  return null;
}

/** Drops the fields without a message. */
function only(errors: Record<string, string | null>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(errors).filter((e): e is [string, string] => e[1] !== null),
  );
}

/** The profile form (`ProfileForm`). */
export const checkProfile: FormCheck = (v) => {
  const zone = (v.timezone ?? "").trim();
  return only({
    displayName: text(v.displayName, "Enter a display name."),
    timezone: zone === ""
      ? "Enter a time zone, such as Europe/Paris."
      : knownZone(zone)
      ? null
      : `"${zone.slice(0, 64)}" is not a time zone we know.`,
  });
};

/** The token form (`TokenForm`). */
export const checkToken: FormCheck = (v) => only({ name: text(v.name, "Give the token a name.") });

/** The password form (`PasswordForm`; the common-password list stays on the server). */
export const checkPassword: FormCheck = (v) => {
  const next = v.newPassword ?? "";
  return only({
    currentPassword: (v.currentPassword ?? "") === "" ? "Enter your current password." : null,
    newPassword: next.length < 8
      ? "Password: at least 8 characters."
      : next.length > 256
      ? "Password: at most 256 characters."
      : null,
  });
};

/** The delete form (`deleteConfirmationOf`). */
export const checkDelete: FormCheck = (v, { username }) =>
  only({
    confirmUsername: (v.confirmUsername ?? "").trim().toLowerCase() === username.toLowerCase()
      ? null
      : `Type your username, ${username}, to confirm.`,
  });

/** The import form: a file is chosen (its size and type are the server's to judge). */
export const checkImport: FormCheck = (v) =>
  only({ file: v.file ? null : "Choose a file to import." });
