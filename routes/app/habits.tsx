/**
 * `POST /app/habits`: one cell of Today's habit list (issue #24) — a tap on a yes/no day, a number
 * typed, "Same as yesterday", "+1" or "Skip day". The cell's fields become the day form's own
 * (`dayFormFieldsOf`), are read by the day form's parser and saved by the same `saveEntry` action
 * under the same `proxy` quota and CSRF check as `POST /app` (DESIGN §14: nothing twice). The
 * form names the state it sets (`set=yes`, never "toggle"), so a replayed post — a double tap, an
 * offline queue sending again — leaves the same day, not the opposite one.
 *
 * Answers: a form navigation gets 303 See Other back to the row's anchor on Today
 * (Post/Redirect/Get); the page's script (`fetch`, whose `Sec-Fetch-Mode` is not `navigate` —
 * Fetch Metadata, W3C "Fetch Metadata Request Headers" §2.3) gets 204 No Content and no flash
 * message left for a later page. A value that is not one re-renders Today with the message inside
 * that cell, the typed text kept (422).
 */

import { TodayPage } from "../../components/TodayPage.tsx";
import { cellDay } from "../../components/HabitList.tsx";
import type { DateLocale } from "../../components/dates.ts";
import { define } from "../../lib/http/kernel/define.ts";
import type { AppContext } from "../../lib/http/kernel/define.ts";
import {
  type PageMember,
  redirectTo,
  requirePageMember,
  verifyFormPost,
} from "../../lib/http/web/browser_session.ts";
import { runPageAction } from "../../lib/http/web/page_actions.ts";
import { readForm } from "../../lib/http/web/page_forms.ts";
import { htmlPage, pageResponse } from "../../lib/http/web/pages.ts";
import { AppError } from "../../lib/foundation/errors.ts";
import { dayFormFieldsOf, habitPostDay, loadHabits } from "../../lib/webapp/habits.ts";
import { loadToday, parseDayForm } from "../../lib/webapp/today.ts";
import type { DayValue } from "../../lib/record/types.ts";

/** Today with the habit list, the failed cell open with its message and what was typed. */
async function showCellError(
  c: AppContext,
  page: PageMember,
  cell: { column: string; day: string; typed: string; message: string },
): Promise<Response> {
  const records = c.var.deps.access.records;
  return pageResponse(
    c,
    <TodayPage
      view={await loadToday(records, page)}
      habits={await loadHabits(records, page)}
      habitError={cell}
      member={page.member}
      csrfToken={page.csrfToken}
    />,
    { status: 422 },
  );
}

/** What the flash says after a saved cell: "Workout, Thursday 26 November: done." */
function savedWords(
  label: string,
  day: string,
  value: DayValue | null | undefined,
  locale: DateLocale,
): string {
  const what = value === true
    ? "done"
    : value === false
    ? "not done"
    : value === "skip"
    ? "skipped"
    : value === null
    ? "cleared"
    : value === undefined
    ? "unchanged"
    : "saved";
  return `${label}, ${cellDay(day, locale)}: ${what}.`;
}

async function submitCell(c: AppContext): Promise<Response> {
  const page = await requirePageMember(c);
  const form = await readForm(c);
  verifyFormPost(c, form);
  const view = await loadToday(c.var.deps.access.records, page, habitPostDay(form));
  // "Same as yesterday" and "+1" are buttons carrying the value they set.
  const sent = form.quick !== undefined ? { ...form, value: form.quick } : form;
  const { column, fields } = dayFormFieldsOf(view, sent);
  const parsed = parseDayForm(view, fields);
  const typed = (sent.value ?? "").slice(0, 100);
  const message = parsed.errors[column.key];
  if (message) return showCellError(c, page, { column: column.key, day: view.day, typed, message });
  try {
    if (Object.keys(parsed.values).length > 0) {
      await runPageAction(c, page, "proxy.saveEntry", { date: view.day, values: parsed.values });
    }
  } catch (err) {
    // A value out of the column's range: its message goes inside the cell, the input kept.
    if (err instanceof AppError && err.code === "invalid_value") {
      const text = err.message.replace(/^Column "[^"]*" \([^)]*\): /, "");
      return showCellError(c, page, { column: column.key, day: view.day, typed, message: text });
    }
    throw err;
  }
  const mode = c.req.header("sec-fetch-mode");
  if (mode !== undefined && mode !== "navigate") {
    c.header("Cache-Control", "no-store");
    return c.body(null, 204);
  }
  const flash = savedWords(
    column.label,
    view.day,
    parsed.values[column.key],
    page.member.locale,
  );
  return redirectTo(c, `/app#habit-${column.key}`, flash);
}

export const handler = define.handlers({
  // The address a no-JavaScript post leaves behind never shows in the bar (303), but a GET of it
  // (typed, or an old bookmark) goes to Today rather than a "method not allowed" page.
  GET: (c) => redirectTo(c, "/app"),
  POST: htmlPage(submitCell),
});
