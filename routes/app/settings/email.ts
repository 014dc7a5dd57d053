/**
 * `POST /app/settings/email` (issue #24): the `/api/auth` `setEmail` action — the address waits
 * for its link, which is mailed now; the verified one, if any, stays in use until then.
 */

import { z } from "zod";
import { AppError } from "../../../lib/foundation/errors.ts";
import { redirectTo } from "../../../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../../../lib/http/kernel/define.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { readForm } from "../../../lib/http/web/page_forms.ts";
import { htmlPage } from "../../../lib/http/web/pages.ts";
import { typedAddress } from "../../../lib/webapp/email.ts";
import { postedBy, reopenSettings, settingsPage } from "./_settings_page.tsx";

/** Sends the link, or the page again with the error beside the field. */
async function submitEmail(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  const page = await postedBy(c, form);
  const email = typedAddress(form);
  try {
    await runPageAction(c, page, "auth.setEmail", { email });
  } catch (err) {
    const message = err instanceof z.ZodError
      ? err.issues[0].message
      : err instanceof AppError && err.status < 500
      ? err.message
      : null;
    if (message === null) throw err;
    return await settingsPage(c, page, { emailForm: { value: email, error: message } }, 422);
  }
  return redirectTo(
    c,
    "/app/settings#email",
    `A link is on its way to ${email}. Open it within 24 hours to verify the address.`,
  );
}

export const handler = define.handlers({
  GET: reopenSettings("email"),
  POST: htmlPage(submitEmail),
});
