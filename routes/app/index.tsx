/**
 * `GET/POST /app`: Today — show a day, save it (Post/Redirect/Get), skip a column. Saving goes
 * through the `saveEntry` proxy action (`runPageAction`: the function `POST /api/proxy` runs,
 * under its quota) — never a second implementation. What the day shows: lib/webapp/today.ts.
 */

import { TodayPage, type TodayPageProps } from "../../components/TodayPage.tsx";
import { dayTitle } from "../../components/dates.ts";
import { AppError } from "../../lib/foundation/errors.ts";
import { loadHabits } from "../../lib/webapp/habits.ts";
import {
  loadToday,
  parseDayForm,
  type TodayView,
  unloggableDayMessage,
} from "../../lib/webapp/today.ts";
import {
  type PageMember,
  redirectTo,
  requirePageMember,
  verifyFormPost,
} from "../../lib/http/web/browser_session.ts";
import { runPageAction } from "../../lib/http/web/page_actions.ts";
import { readForm } from "../../lib/http/web/page_forms.ts";

import { type AppContext, define } from "../../lib/http/kernel/define.ts";
import { htmlPage, pageResponse } from "../../lib/http/web/pages.ts";

async function render(
  c: AppContext,
  page: PageMember,
  view: TodayView,
  extra: Partial<TodayPageProps> = {},
  status = 200,
) {
  // Today opens on the habit list (issue #24); a past day shows only its form.
  const habits = view.isToday ? await loadHabits(c.var.deps.access.records, page) : undefined;
  return pageResponse(
    c,
    <TodayPage
      view={view}
      member={page.member}
      csrfToken={page.csrfToken}
      flash={page.flash}
      habits={habits}
      {...extra}
    />,
    { status },
  );
}

/** The day asked for: `?day=` (a link) or the form's `day` field. */
function dayParam(c: AppContext, form?: Record<string, string>): string | undefined {
  const raw = form?.day ?? c.req.query("day");
  return raw ? raw.slice(0, 40) : undefined;
}

/**
 * `GET /app[?day=YYYY-MM-DD]`. A `?day=` that is no date or lies ahead (typed, bookmarked, or from
 * a browser that ignores the date field's `max`) shows Today with the message beside "Log another
 * day" and the typed day kept (DESIGN §14: errors beside the field) — not an error page in the
 * signed-out frame.
 */
async function showToday(c: AppContext): Promise<Response> {
  const page = await requirePageMember(c);
  const records = c.var.deps.access.records;
  const asked = dayParam(c);
  try {
    return render(c, page, await loadToday(records, page, asked));
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== "invalid_date" || asked === undefined) throw err;
    const view = await loadToday(records, page);
    const dayError = { typed: asked, message: unloggableDayMessage(asked, view.today) };
    return render(c, page, view, { dayError }, 400);
  }
}

/** `POST /app`: save the day's values, or skip or clear one column keeping what was typed. */
async function submitToday(c: AppContext): Promise<Response> {
  const page = await requirePageMember(c);
  const form = await readForm(c);
  verifyFormPost(c, form);
  const view = await loadToday(c.var.deps.access.records, page, dayParam(c, form));
  const parsed = parseDayForm(view, form);
  if (Object.keys(parsed.errors).length > 0) {
    return render(c, page, view, { typed: parsed.typed, errors: parsed.errors }, 422);
  }
  try {
    if (Object.keys(parsed.values).length > 0 || parsed.note !== undefined) {
      await runPageAction(c, page, "proxy.saveEntry", {
        date: view.day,
        values: parsed.values,
        ...(parsed.note !== undefined ? { note: parsed.note } : {}),
      });
    }
  } catch (err) {
    // A value out of its column's range: the message goes beside that column, input kept.
    const column = err instanceof AppError ? err.details?.column : undefined;
    if (err instanceof AppError && err.code === "invalid_value" && typeof column === "string") {
      const message = err.message.replace(/^Column "[^"]*" \([^)]*\): /, "");
      return render(c, page, view, { typed: parsed.typed, errors: { [column]: message } }, 422);
    }
    throw err;
  }
  const labelOf = (key?: string) =>
    view.columns.find((col) => col.column.key === key)?.column.label;
  const [skipped, cleared] = [labelOf(form.skip), labelOf(form.clear)];
  const when = view.isToday ? "today" : dayTitle(view.day, page.member.locale);
  const flash = skipped
    ? `${skipped}: skipped ${when}.`
    : cleared
    ? `${cleared}: cleared ${when}.`
    : `Saved ${when}.`;
  return redirectTo(c, view.isToday ? "/app" : `/app?day=${view.day}`, flash);
}

export const handler = define.handlers({
  GET: htmlPage(showToday),
  POST: htmlPage(submitToday),
});
