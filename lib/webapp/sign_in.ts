/**
 * What the sign-in and sign-up pages (`/signin`, `/signup`; DESIGN §7, §14) show and read: the
 * account schemas' rules in words, and the form's credentials. The account is created or signed
 * in by the `/api/auth` actions themselves (routes/signin.tsx, routes/signup.tsx).
 */

import { Password, Username } from "../accounts/accounts.ts";

/** What a username may be, in the schema's own words (no number restated here). */
export const USERNAME_RULE = (Username.safeParse("").error?.issues[0].message ?? "")
  .replace(/^Username:\s*/, "").replace(/^./, (ch) => ch.toUpperCase());

/** The shortest password the sign-up schema accepts. */
export const PASSWORD_MIN = Password.minLength ?? 8;

/** The typed credentials, cut to what a person can have typed (the action's schema checks). */
export function credentialsOf(form: Record<string, string>) {
  return {
    username: (form.username ?? "").trim().slice(0, 64),
    password: (form.password ?? "").slice(0, 300),
  };
}

/**
 * The time zone typed or filled in on sign-up, cut to what a field holds; UTC when the field is
 * absent or empty (an old form). A name that is no IANA zone is passed on, so the account schema
 * refuses it beside the field (issue #25, defect 3: it used to become UTC without a word).
 */
export function timeZoneOf(form: Record<string, string>): string {
  const typed = (form.timezone ?? "").trim().slice(0, 64);
  return typed === "" ? "UTC" : typed;
}

/** The IANA zone names the sign-up field suggests (the runtime's own list, as Settings'). */
export function signUpTimeZones(): string[] {
  return Intl.supportedValuesOf("timeZone");
}

/** What sign-up says beside a time zone that is no IANA name. */
export function unknownZoneMessage(typed: string): string {
  return `“${typed}” is not a time zone we know: pick one from the list, such as Europe/Paris.`;
}
