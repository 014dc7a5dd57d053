/**
 * `POST /api/auth`: register, login, logout, session (DESIGN §7, spec "POST /api/auth"), and the
 * account-wide changePassword and deleteAccount (issue #9).
 */

import { deleteCookie, setCookie } from "hono/cookie";
import type { SignedIn } from "../../lib/accounts/accounts.ts";
import { AUTH_ENDPOINT } from "../../lib/actions/endpoints.ts";
import { actionEndpoint } from "../../lib/http/kernel/action_endpoint.ts";
import { SESSION_COOKIE, sessionCookieOptions } from "../../lib/http/kernel/auth.ts";
import { define } from "../../lib/http/kernel/define.ts";

export const handler = define.handlers({
  POST: actionEndpoint({
    ...AUTH_ENDPOINT,
    // The web app's session rides in an HttpOnly cookie as well as the response body (DESIGN §7).
    respond(c, action, result) {
      if (action === "register" || action === "login") {
        const { sessionToken } = result as SignedIn;
        setCookie(c, SESSION_COOKIE, sessionToken, sessionCookieOptions(c.var.deps.config.baseUrl));
        c.header("Cache-Control", "no-store");
      } else if (action === "logout" || action === "deleteAccount") {
        deleteCookie(c, SESSION_COOKIE, { path: "/" });
      }
    },
  }),
});
