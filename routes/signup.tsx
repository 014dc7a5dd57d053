/**
 * `GET/POST /signup`: create an account in the browser (DESIGN §7, §14) through the `/api/auth`
 * `register` action and its `auth` rate-limit policy (`runPageAction`): the account schemas'
 * messages beside their fields, the session in the HttpOnly cookie.
 */

import { z } from "zod";
import { verifyFormPost } from "../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../lib/http/kernel/define.ts";
import { runPageAction } from "../lib/http/web/page_actions.ts";
import { readForm } from "../lib/http/web/page_forms.ts";
import { htmlPage } from "../lib/http/web/pages.ts";
import { AppError } from "../lib/foundation/errors.ts";
import { fieldErrors } from "../lib/webapp/form_errors.ts";
import { credentialsOf, timeZoneOf, unknownZoneMessage } from "../lib/webapp/sign_in.ts";
import { renderAuthPage, showAuthPage, signedIn } from "./_auth_page.tsx";

/** `POST`: create the account, set the cookie, 303 to `next`; or the form with its errors. */
async function signUp(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  verifyFormPost(c, form); // login CSRF (OWASP): a foreign site must not sign you in as itself
  const { username, password } = credentialsOf(form);
  const timezone = timeZoneOf(form);
  try {
    const input = { username, password, timezone };
    return signedIn(c, await runPageAction(c, null, "auth.register", input));
  } catch (err) {
    if (err instanceof z.ZodError) {
      const errors = fieldErrors(err);
      if (errors.timezone) errors.timezone = unknownZoneMessage(timezone);
      return renderAuthPage(c, "signup", { username, timezone, errors }, 400);
    }
    if (err instanceof AppError && err.code === "username_taken") {
      const errors = { username: err.message };
      return renderAuthPage(c, "signup", { username, timezone, errors }, 409);
    }
    throw err;
  }
}

export const handler = define.handlers({
  GET: htmlPage((c) => showAuthPage(c, "signup")),
  POST: htmlPage(signUp),
});
