/** `POST /app/settings/reminders/test`: "Send a test reminder" to every device (issue #24). */

import { define } from "../../../../lib/http/define.ts";
import {
  redirectTo,
  requirePageMember,
  verifyFormPost,
} from "../../../../lib/http/browser_session.ts";
import { runPageAction } from "../../../../lib/http/page_actions.ts";
import { readForm } from "../../../../lib/http/page_forms.ts";
import { htmlPage } from "../../../../lib/http/pages.ts";
import { testReminderWords } from "../../../../lib/webapp/reminders.ts";

export const handler = define.handlers({
  GET: (c) => redirectTo(c, "/app/settings/reminders#devices"),
  POST: htmlPage(async (c) => {
    const form = await readForm(c);
    verifyFormPost(c, form);
    const page = await requirePageMember(c);
    const report = await runPageAction(c, page, "proxy.sendTestReminder", {});
    return redirectTo(c, "/app/settings/reminders#devices", testReminderWords(report as never));
  }),
});
