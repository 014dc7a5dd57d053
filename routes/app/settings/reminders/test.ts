/**
 * `POST /app/settings/reminders/test`: "Send a test reminder" to every device (issue #24). The
 * plain form gets a 303 with the outcome as a flash; the hydrated Reminders island (issue #25)
 * posts a JSON body (`Content-Type: application/json`) and shows the `{message}` answer in place.
 * Either way the same CSRF check as every form (OWASP CSRF cheat sheet: synchronizer token +
 * Origin).
 */

import { z } from "zod";
import { type AppContext, define } from "../../../../lib/http/kernel/define.ts";
import {
  redirectTo,
  requirePageMember,
  verifyFormPost,
} from "../../../../lib/http/web/browser_session.ts";
import { runPageAction } from "../../../../lib/http/web/page_actions.ts";
import { readJsonBody } from "../../../../lib/http/kernel/body.ts";
import { readForm } from "../../../../lib/http/web/page_forms.ts";
import { htmlPage } from "../../../../lib/http/web/pages.ts";
import { testReminderWords } from "../../../../lib/webapp/reminders.ts";

/** The island's JSON body: the page's CSRF field only. */
const TestBody = z.object({ csrf: z.string().optional() }).strict();

/** Whether the caller is the island's script (a JSON call), not the plain form. */
function wantsJson(c: AppContext): boolean {
  return (c.req.header("content-type") ?? "").startsWith("application/json");
}

export const handler = define.handlers({
  GET: (c) => redirectTo(c, "/app/settings/reminders#devices"),
  POST: htmlPage(async (c) => {
    const json = wantsJson(c);
    const form = json ? TestBody.parse(await readJsonBody(c, 1024)) : await readForm(c);
    verifyFormPost(c, form);
    const page = await requirePageMember(c);
    const report = await runPageAction(c, page, "proxy.sendTestReminder", {});
    const message = testReminderWords(report as never);
    if (json) return c.json({ message });
    return redirectTo(c, "/app/settings/reminders#devices", message);
  }),
});
