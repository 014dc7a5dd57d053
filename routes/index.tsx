/** `GET /`: the landing page (components/LandingPage.tsx). */

import { LandingPage } from "../components/LandingPage.tsx";
import { define } from "../lib/http/kernel/define.ts";
import { hasBrowserSession, takeFlash } from "../lib/http/web/browser_session.ts";
import { htmlPage, pageResponse } from "../lib/http/web/pages.ts";

export const handler = define.handlers({
  GET: htmlPage(async (c) =>
    pageResponse(
      c,
      <LandingPage
        baseUrl={c.var.deps.config.baseUrl}
        signedIn={await hasBrowserSession(c)}
        flash={takeFlash(c)}
      />,
    )
  ),
});
