/**
 * What the e-mail pages (issue #24: `/forgot-password`, `/reset-password`, `/verify-email`,
 * Settings → E-mail) read from their forms. They run nothing: each controller runs the `/api/auth`
 * action itself (`runPageAction`).
 */

import type { Member } from "../accounts/accounts.ts";
import { keys } from "../foundation/kv_keys.ts";
import { readKv } from "../foundation/kv_commit.ts";

/** The member's verified and pending addresses, for Settings (a read: it spends no quota). */
export async function loadEmailState(
  kv: Deno.Kv,
  memberId: string,
): Promise<{ email: string | null; pending: string | null }> {
  const entry = await readKv(() => kv.get<Member>(keys.member(memberId)));
  return { email: entry.value?.email ?? null, pending: entry.value?.emailPending ?? null };
}

/** The typed address, cut to what a person can have typed (the action's schema checks it). */
export function typedAddress(form: Record<string, string>): string {
  return (form.email ?? "").trim().slice(0, 300);
}

/** The reset form's fields as the `resetPassword` action takes them. */
export function resetInputOf(form: Record<string, string>) {
  return {
    token: (form.token ?? "").slice(0, 200),
    newPassword: (form.newPassword ?? "").slice(0, 300),
    endTokensAndApps: form.endTokensAndApps === "on",
  };
}
