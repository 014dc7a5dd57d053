/** `GET /app/history`: the History page (issue #11 §3; components/HistoryPage.tsx). */

import { HistoryPage } from "../../components/HistoryPage.tsx";
import { define } from "../../lib/http/define.ts";
import { htmlPage, pageResponse, requirePageMember } from "../../lib/http/page_auth.ts";
import { HistoryQuery, loadHistory } from "../../lib/webapp/history.ts";

export const handler = define.handlers({
  GET: htmlPage(async (c) => {
    const page = await requirePageMember(c);
    if (page instanceof Response) return page;
    const query = HistoryQuery.parse(c.req.query());
    const view = await loadHistory(c.var.deps.access.records, page, query);
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
