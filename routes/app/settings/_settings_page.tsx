/**
 * What the Settings routes share (a `_` file: private to its folder, not a route): the page with
 * a new token or a failed form, the CSRF-checked member of a POST, and the GET of a POST address.
 * Each POST route (`profile`, `tokens`, …): the signed-in member, the CSRF check (`verifyFormPost`,
 * OWASP synchronizer token + Origin), one action of the REST tables (`runPageAction`), then a 303
 * with a flash (Post/Redirect/Get) or the page again with the error beside its field.
 */

import { AppShell } from "../../../components/AppShell.tsx";
import { IslandMount } from "../../../components/IslandMount.tsx";
import type { SettingsPageProps } from "../../../components/SettingsPage.tsx";
import Settings from "../../../islands/Settings.tsx";
import {
  type PageMember,
  redirectTo,
  requirePageMember,
  verifyFormPost,
} from "../../../lib/http/web/browser_session.ts";
import type { AppContext } from "../../../lib/http/kernel/define.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { pageResponse } from "../../../lib/http/web/pages.ts";
import type { GrantSummary } from "../../../lib/oauth/grants.ts";
import { loadEmailState } from "../../../lib/webapp/email.ts";
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from "../../../lib/record/import_source.ts";
import { IMPORT_PART_DAYS } from "../../../lib/record/import_plan.ts";
import {
  IMPORT_FORMAT_LABELS,
  loadTokens,
  type SettingsData,
  timeZoneNames,
} from "../../../lib/webapp/settings.ts";

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

/** What the import form offers and accepts (plain numbers and labels: island props). */
const IMPORTS: SettingsPageProps["imports"] = {
  formats: Object.entries(IMPORT_FORMAT_LABELS).map(([value, label]) => ({ value, label })),
  maxKb: Math.round(MAX_IMPORT_BYTES / 1024),
  maxRows: MAX_IMPORT_ROWS,
  partDays: IMPORT_PART_DAYS,
};

/**
 * Renders the Settings page for `page`, with a new token or a failed form when given: the body is
 * the Settings island (islands/Settings.tsx), server-rendered inside the app shell with its props
 * beside it for hydration (`data-props`, read by the bundle scripts/build_islands.ts writes).
 */
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
  const props: SettingsPageProps = {
    member: page.member,
    csrfToken: page.csrfToken,
    tokens: data.tokens,
    grants: data.grants,
    timeZones: timeZoneNames(),
    // A fresh nonce per render: each page shown can create one token (issue #25, defect 7).
    tokenNonce: crypto.randomUUID(),
    imports: IMPORTS,
    email: { ...email, mailConfigured: c.var.deps.config.smtp !== null, ...emailForm },
    ...rest,
  };
  return pageResponse(
    c,
    <AppShell
      title="Settings"
      member={page.member}
      active="settings"
      csrfToken={page.csrfToken}
      flash={page.flash}
    >
      <IslandMount name="Settings" props={props}>
        <Settings {...props} />
      </IslandMount>
    </AppShell>,
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
