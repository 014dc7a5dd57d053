/**
 * What the sign-in and sign-up pages (`/signin`, `/signup`; DESIGN §7, §14) show and read: the
 * account schemas' rules in words, and the form's credentials. The account is created or signed
 * in by the `/api/auth` actions themselves (routes/signin.tsx, routes/signup.tsx).
 */

import { Password, Username } from "../accounts/accounts.ts";
import { TimeZone } from "../foundation/dates.ts";

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

/** The browser's time zone (sent by the sign-up page's script), or UTC when none or unknown. */
export function timeZoneOf(form: Record<string, string>): string {
  const zone = TimeZone.safeParse(form.timezone);
  return zone.success ? zone.data : "UTC";
}
