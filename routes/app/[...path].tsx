/**
 * Any other `/app/…` path: signed out → `/signin?next=…` (the page may exist once signed in);
 * signed in → a friendly 404 inside the app frame.
 */

import { AppNotFound } from "../../components/NotFound.tsx";
import { define } from "../../lib/http/define.ts";
import { htmlPage, pageResponse, requirePageMember } from "../../lib/http/page_auth.ts";

export const handler = define.handlers({
  GET: htmlPage(async (c) => {
    const page = await requirePageMember(c);
    if (page instanceof Response) return page;
    return pageResponse(
      c,
      <AppNotFound member={page.member} csrfToken={page.csrfToken} path={c.req.path} />,
      { status: 404 },
    );
  }),
});
