/**
 * `GET/POST /signin`: sign in in the browser (DESIGN §7, §14) through the `/api/auth` `login`
 * action and its `auth` rate-limit policy (`runPageAction`), the session in the HttpOnly cookie.
 */

import { z } from "zod";
import { verifyFormPost } from "../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../lib/http/kernel/define.ts";
import { runPageAction } from "../lib/http/web/page_actions.ts";
import { readForm } from "../lib/http/web/page_forms.ts";
import { htmlPage } from "../lib/http/web/pages.ts";
import { AppError } from "../lib/foundation/errors.ts";
import { credentialsOf } from "../lib/webapp/sign_in.ts";
import { renderAuthPage, showAuthPage, signedIn } from "./_auth_page.tsx";

/** `POST`: sign in, set the cookie, 303 to `next`; or the form with one message. */
async function signIn(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  verifyFormPost(c, form); // login CSRF (OWASP): a foreign site must not sign you in as itself
  const { username, password } = credentialsOf(form);
  try {
    return signedIn(c, await runPageAction(c, null, "auth.login", { username, password }));
  } catch (err) {
    // One message for an unknown name, a wrong password, and one longer than any password can be
    // (the action's schema refuses it) — OWASP Authentication cheat sheet.
    const wrong = err instanceof AppError && err.code === "invalid_credentials";
    if (!wrong && !(err instanceof z.ZodError)) throw err;
    const message = wrong ? err.message : "Username or password is incorrect.";
    return renderAuthPage(c, "signin", { username, errors: { password: message } }, 401);
  }
}

export const handler = define.handlers({
  GET: htmlPage((c) => showAuthPage(c, "signin")),
  POST: htmlPage(signIn),
});
