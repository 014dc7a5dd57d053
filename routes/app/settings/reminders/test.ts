/** `POST /app/settings/reminders/test`: "Send a test reminder" to every device (issue #24). */

import { define } from "../../../../lib/http/define.ts";
import {
  htmlPage,
  readForm,
  redirectTo,
  requirePageMember,
  runPageAction,
  verifyFormPost,
} from "../../../../lib/http/page_auth.ts";
import { testReminderWords } from "../../../../lib/webapp/reminders.ts";

export const handler = define.handlers({
  GET: (c) => redirectTo(c, "/app/settings/reminders#devices"),
  POST: htmlPage(async (c) => {
    const form = await readForm(c);
    verifyFormPost(c, form);
    const page = await requirePageMember(c);
    if (page instanceof Response) return page;
    const report = await runPageAction(c, page.memberId, { action: "sendTestReminder" });
    return redirectTo(c, "/app/settings/reminders#devices", testReminderWords(report as never));
  }),
});
