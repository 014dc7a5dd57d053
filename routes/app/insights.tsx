/** `GET /app/insights`: the Coach page (issue #11 §5; components/InsightsPage.tsx). */

import { InsightsPage } from "../../components/InsightsPage.tsx";
import { define } from "../../lib/http/kernel/define.ts";
import { requirePageMember } from "../../lib/http/web/browser_session.ts";
import { htmlPage, pageResponse } from "../../lib/http/web/pages.ts";
import { loadInsights } from "../../lib/webapp/insights.ts";

export const handler = define.handlers({
  GET: htmlPage(async (c) => {
    const page = await requirePageMember(c);
    const view = await loadInsights(c.var.deps.access.records, page);
    return pageResponse(
      c,
      <InsightsPage
        view={view}
        member={page.member}
        csrfToken={page.csrfToken}
        flash={page.flash}
      />,
    );
  }),
});
