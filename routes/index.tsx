/** `GET /`: the landing page (components/LandingPage.tsx). */

import { LandingPage } from "../components/LandingPage.tsx";
import { define } from "../lib/http/define.ts";
import { hasBrowserSession, htmlPage, pageResponse, takeFlash } from "../lib/http/page_auth.ts";

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
