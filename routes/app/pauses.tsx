/**
 * `GET/POST /app/pauses` (issue #25): list, add and delete the member's pauses. Every read and
 * write is a `/api/proxy` action run for the page's member (`runPageAction`: `listPauses`,
 * `createPause`, `deletePause`, under the proxy's quota). The form is read by lib/webapp/pauses.ts.
 */

import { PausesPage } from "../../components/PausesPage.tsx";
import { pauseDaysWords } from "../../components/PausesPage.tsx";
import { type AppContext, define } from "../../lib/http/kernel/define.ts";
import {
  type PageMember,
  redirectTo,
  requirePageMember,
  verifyFormPost,
} from "../../lib/http/web/browser_session.ts";
import { runPageAction } from "../../lib/http/web/page_actions.ts";
import { readForm } from "../../lib/http/web/page_forms.ts";
import { htmlPage, pageResponse } from "../../lib/http/web/pages.ts";
import { toAppError } from "../../lib/http/kernel/errors.ts";
import { formatDay, localDay } from "../../lib/foundation/dates.ts";
import type { PauseViewOf } from "../../lib/record/pauses.ts";
import type { Column } from "../../lib/record/types.ts";
import { readPauseForm } from "../../lib/webapp/pauses.ts";

async function render(
  c: AppContext,
  page: PageMember,
  adding?: { form: Record<string, string>; errors: Record<string, string> },
) {
  const { pauses } = await runPageAction(c, page, "proxy.listPauses") as { pauses: PauseViewOf[] };
  const columns = await activeColumns(c, page);
  const m = page.member;
  const today = formatDay(localDay(c.var.deps.clock(), m.timezone, m.dayStartOffsetHours));
  return pageResponse(
    c,
    <PausesPage
      member={m}
      csrfToken={page.csrfToken}
      flash={page.flash}
      today={today}
      pauses={pauses}
      columns={columns}
      adding={adding}
    />,
    { status: adding ? 422 : 200 },
  );
}

async function activeColumns(c: AppContext, page: PageMember): Promise<Column[]> {
  const { columns } = await runPageAction(c, page, "proxy.listColumns") as { columns: Column[] };
  return columns.filter((col) => !col.archived);
}

/** `POST /app/pauses`: `do=add` or `do=delete`. */
async function submitPauses(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  verifyFormPost(c, form);
  const page = await requirePageMember(c);
  if (form.do === "delete") {
    const { pause } = await runPageAction(c, page, "proxy.deletePause", {
      id: (form.id ?? "").slice(0, 64),
    }) as { pause: PauseViewOf };
    return redirectTo(c, "/app/pauses", `Deleted the pause ${pauseDaysWords(pause)}.`);
  }
  const read = readPauseForm(form, await activeColumns(c, page));
  if (!read.ok) return await render(c, page, { form, errors: read.errors });
  try {
    const { pause } = await runPageAction(c, page, "proxy.createPause", read.input) as {
      pause: PauseViewOf;
    };
    return redirectTo(c, "/app/pauses", `Paused ${pauseDaysWords(pause)}.`);
  } catch (err) {
    // The store's own refusals (a pause too long or too far ahead) beside the last day.
    const e = toAppError(err);
    if (e.status !== 400) throw err;
    return await render(c, page, { form, errors: { end: e.message } });
  }
}

export const handler = define.handlers({
  GET: htmlPage(async (c) => await render(c, await requirePageMember(c))),
  POST: htmlPage(submitPauses),
});
