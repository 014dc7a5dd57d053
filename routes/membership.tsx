/** `GET /membership`: free and paid in plain words (components/MembershipPage.tsx). */

import { MembershipPage } from "../components/MembershipPage.tsx";
import { TIER_LIMITS } from "../lib/coach/tier.ts";
import { buildPricing } from "../lib/documents/discovery.ts";
import { define } from "../lib/http/kernel/define.ts";
import { hasBrowserSession } from "../lib/http/web/browser_session.ts";
import { htmlPage, pageResponse } from "../lib/http/web/pages.ts";

export const handler = define.handlers({
  GET: htmlPage(async (c) => {
    const pricing = buildPricing(c.var.deps.config.baseUrl);
    const paid = pricing.plans.find((p) => p.name === "paid") as { price: number; period: string };
    return pageResponse(
      c,
      <MembershipPage
        signedIn={await hasBrowserSession(c)}
        paid={paid}
        currency={pricing.currency}
        limits={TIER_LIMITS}
      />,
    );
  }),
});
