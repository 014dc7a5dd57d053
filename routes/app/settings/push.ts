/**
 * `POST /app/settings/push`: the page's script (the Reminders island (islands/Reminders.tsx)) sends this browser's
 * `PushSubscription` as JSON `{csrf, subscription}` to add it, or `{csrf, endpoint}` to remove it
 * (issue #24). A cookie-authenticated POST, so the same CSRF check as every form (Fetch Metadata
 * and Origin; OWASP CSRF cheat sheet); a JSON body also needs a CORS preflight from another
 * origin, which the service never grants. Answers the `/api/proxy` action's JSON.
 */

import { z } from "zod";
import { define } from "../../../lib/http/kernel/define.ts";
import { readJsonBody } from "../../../lib/http/kernel/body.ts";
import { AppError } from "../../../lib/foundation/errors.ts";
import { optionalPageMember, verifyFormPost } from "../../../lib/http/web/browser_session.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";

const PushBody = z.union([
  z.object({ csrf: z.string().optional(), subscription: z.unknown() }).strict(),
  z.object({ csrf: z.string().optional(), endpoint: z.string() }).strict(),
]);

export const handler = define.handlers({
  async POST(c) {
    const body = PushBody.parse(await readJsonBody(c, 16 * 1024));
    verifyFormPost(c, body);
    // A script's JSON call: no redirect to sign in, a 401 it can read.
    const page = await optionalPageMember(c);
    if (!page) throw new AppError("unauthorized", "Sign in first.");
    const { csrf: _csrf, ...fields } = body;
    const result = "subscription" in fields
      ? await runPageAction(c, page, "proxy.addPushSubscription", { ...fields })
      : await runPageAction(c, page, "proxy.removePushSubscription", { ...fields });
    return c.json(result, "subscription" in fields ? 201 : 200);
  },
});
