/**
 * Any other `/app/…` path: signed out → `/signin?next=…` (the page may exist once signed in);
 * signed in → a friendly 404 inside the app frame.
 */

import { AppNotFound } from "../../components/NotFound.tsx";
import { define } from "../../lib/http/kernel/define.ts";
import { requirePageMember } from "../../lib/http/web/browser_session.ts";
import { htmlPage, pageResponse } from "../../lib/http/web/pages.ts";

export const handler = define.handlers({
  GET: htmlPage(async (c) => {
    const page = await requirePageMember(c);
    return pageResponse(
      c,
      <AppNotFound member={page.member} csrfToken={page.csrfToken} path={c.req.path} />,
      { status: 404 },
    );
  }),
});
