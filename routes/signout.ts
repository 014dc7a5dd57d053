/**
 * `POST /signout`: ends the browser's session (the "Sign out" button on every signed-in page).
 * The one page write that is not `runPageAction`: its REST twin (`/api/auth` `logout`) spends the
 * per-IP `auth` quota, and a member on a shared network whose address used it up must still be
 * able to sign out of a shared computer (OWASP Session Management cheat sheet, "Manual Session
 * Expiration"). Ending a session is the browser session's own business (lib/http/web/browser_session.ts).
 */

import { define } from "../lib/http/kernel/define.ts";
import { endBrowserSession, redirectTo, verifyFormPost } from "../lib/http/web/browser_session.ts";
import { readForm } from "../lib/http/web/page_forms.ts";
import { htmlPage } from "../lib/http/web/pages.ts";

export const handler = define.handlers({
  POST: htmlPage(async (c) => {
    // A cross-site form must not be able to sign a member out either (OWASP CSRF cheat sheet).
    verifyFormPost(c, await readForm(c));
    await endBrowserSession(c);
    return redirectTo(c, "/signin", "You are signed out.");
  }),
});
