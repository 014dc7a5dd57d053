/**
 * `GET /app/settings/reminders`: the reminder settings; `POST`: save the times (issue #24). Every
 * read and write is a `/api/proxy` action run for the page's member (`runPageAction`). The body is
 * the Reminders island (islands/Reminders.tsx, issue #25), server-rendered inside the app shell with
 * its props beside it for hydration (`data-props`, read by the bundle scripts/build_islands.ts
 * writes).
 */

import { define } from "../../../lib/http/kernel/define.ts";
import type { AppContext } from "../../../lib/http/kernel/define.ts";
import {
  type PageMember,
  redirectTo,
  requirePageMember,
  verifyFormPost,
} from "../../../lib/http/web/browser_session.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { readForm } from "../../../lib/http/web/page_forms.ts";
import { htmlPage, pageResponse } from "../../../lib/http/web/pages.ts";
import { toAppError } from "../../../lib/http/kernel/errors.ts";
import { AppShell } from "../../../components/AppShell.tsx";
import { IslandMount } from "../../../components/IslandMount.tsx";
import type { RemindersPageProps } from "../../../components/RemindersPage.tsx";
import Reminders from "../../../islands/Reminders.tsx";
import { MAX_REMINDERS } from "../../../lib/notify/reminders.ts";
import { loadEmailState } from "../../../lib/webapp/email.ts";
import { remindersFromForm, type RemindersView } from "../../../lib/webapp/reminders.ts";
import { nextTimeText } from "../../../components/dates.ts";

/** Renders the page for `page`, with a failed save's message when given. */
export async function remindersPage(c: AppContext, page: PageMember, error?: string) {
  const view = await runPageAction(c, page, "proxy.getReminders", {}) as RemindersView;
  const { columns } = await runPageAction(c, page, "proxy.listColumns", {}) as {
    columns: { key: string; label: string; archived?: boolean }[];
  };
  const { email } = await loadEmailState(c.var.deps.kv, page.memberId);
  const props: RemindersPageProps = {
    member: page.member,
    csrfToken: page.csrfToken,
    ...view,
    next: nextTimeText(view.nextDueAt, page.member.timezone, page.member.locale),
    columns: columns.filter((col) => !col.archived).map(({ key, label }) => ({ key, label })),
    error,
    mailConfigured: c.var.deps.config.smtp !== null,
    email,
    maxReminders: MAX_REMINDERS,
  };
  return pageResponse(
    c,
    <AppShell
      title="Reminders"
      member={page.member}
      active="settings"
      csrfToken={page.csrfToken}
      flash={page.flash}
    >
      <IslandMount name="Reminders" props={props}>
        <Reminders {...props} />
      </IslandMount>
    </AppShell>,
    { status: error ? 422 : 200 },
  );
}

export const handler = define.handlers({
  GET: htmlPage(async (c) => {
    const page = await requirePageMember(c);
    return await remindersPage(c, page);
  }),
  POST: htmlPage(async (c) => {
    const form = await readForm(c);
    verifyFormPost(c, form);
    const page = await requirePageMember(c);
    try {
      await runPageAction(c, page, "proxy.setReminders", { ...remindersFromForm(form) });
    } catch (err) {
      const e = toAppError(err);
      if (e.status !== 400) throw err;
      return await remindersPage(c, page, e.message);
    }
    return redirectTo(c, "/app/settings/reminders#times", "Reminders saved.");
  }),
});
