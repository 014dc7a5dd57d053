/** `GET /app/history`: the History page (issue #11 §3; components/HistoryPage.tsx). */

import { dateWords } from "../../components/dates.ts";
import { HistoryPage } from "../../components/HistoryPage.tsx";
import { define } from "../../lib/http/kernel/define.ts";
import { requirePageMember } from "../../lib/http/web/browser_session.ts";
import { htmlPage, pageResponse } from "../../lib/http/web/pages.ts";
import { HistoryQuery, loadHistory } from "../../lib/webapp/history.ts";

export const handler = define.handlers({
  GET: htmlPage(async (c) => {
    const page = await requirePageMember(c);
    const query = HistoryQuery.parse(c.req.query());
    // The calendar's rows and the weekly chart marks start on the member's first day of the week;
    // the charts' dates are written in the member's date style, as the rest of the page's are.
    const options = {
      weekStartsOn: page.member.weekStartsOn,
      dates: dateWords(page.member.locale),
    };
    const view = await loadHistory(c.var.deps.access.records, page, query, options);
    return pageResponse(
      c,
      <HistoryPage
        view={view}
        member={page.member}
        csrfToken={page.csrfToken}
        flash={page.flash}
      />,
    );
  }),
});
