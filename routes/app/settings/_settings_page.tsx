/**
 * What the Settings routes share (a `_` file: private to its folder, not a route): the page with
 * a new token or a failed form, the CSRF-checked member of a POST, and the GET of a POST address.
 * Each POST route (`profile`, `tokens`, …): the signed-in member, the CSRF check (`verifyFormPost`,
 * OWASP synchronizer token + Origin), one action of the REST tables (`runPageAction`), then a 303
 * with a flash (Post/Redirect/Get) or the page again with the error beside its field.
 */

import { SettingsPage, type SettingsPageProps } from "../../../components/SettingsPage.tsx";
import {
  type PageMember,
  redirectTo,
  requirePageMember,
  verifyFormPost,
} from "../../../lib/http/browser_session.ts";
import type { AppContext } from "../../../lib/http/define.ts";
import { runPageAction } from "../../../lib/http/page_actions.ts";
import { pageResponse } from "../../../lib/http/pages.ts";
import type { GrantSummary } from "../../../lib/oauth/grants.ts";
import { loadEmailState } from "../../../lib/webapp/email.ts";
import { loadTokens, type SettingsData, timeZoneNames } from "../../../lib/webapp/settings.ts";

export type SettingsExtra = Pick<SettingsPageProps, "newToken" | "failed"> & {
  /** The e-mail form shown again with what was typed and its error (issue #24). */
  emailForm?: { value: string; error: string };
};

/** The member's API tokens and connected apps (`listGrants`: the action `/api/proxy` runs). */
export async function loadSettings(c: AppContext, page: PageMember): Promise<SettingsData> {
  const [tokens, grants] = await Promise.all([
    loadTokens(c.var.deps, page.memberId),
    runPageAction(c, page, "proxy.listGrants") as Promise<{ grants: GrantSummary[] }>,
  ]);
  return { tokens, grants: grants.grants };
}

/** Renders the Settings page for `page`, with a new token or a failed form when given. */
export async function settingsPage(
  c: AppContext,
  page: PageMember,
  extra: SettingsExtra = {},
  status = 200,
): Promise<Response> {
  const [data, email] = await Promise.all([
    loadSettings(c, page),
    loadEmailState(c.var.deps.kv, page.memberId),
  ]);
  const { emailForm, ...rest } = extra;
  return pageResponse(
    c,
    <SettingsPage
      member={page.member}
      csrfToken={page.csrfToken}
      flash={page.flash}
      tokens={data.tokens}
      grants={data.grants}
      timeZones={timeZoneNames()}
      email={{ ...email, mailConfigured: c.var.deps.config.smtp !== null, ...emailForm }}
      {...rest}
    />,
    { status },
  );
}

/** The signed-in member of a POST whose form passed the CSRF check. */
export async function postedBy(c: AppContext, form: Record<string, string>): Promise<PageMember> {
  verifyFormPost(c, form);
  return await requirePageMember(c);
}

/**
 * `GET` of a settings POST address (`/app/settings/tokens`, …): the address a failed form or a new
 * token leaves in the bar. A phone that reloads a discarded tab, or a member who presses Enter in
 * the bar, sends a GET; it gets the section of Settings (a 303, state unchanged — a GET never acts),
 * not a 405 in JSON.
 */
export function reopenSettings(section: string) {
  return (c: AppContext): Response => redirectTo(c, `/app/settings#${section}`);
}
