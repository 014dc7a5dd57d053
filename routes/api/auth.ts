/** `POST /api/auth`: register, login, logout, session (DESIGN §7, spec "POST /api/auth"). */

import { deleteCookie, setCookie } from "hono/cookie";
import { AuthRequest } from "../../lib/accounts/auth_messages.ts";
import { AUTH_ACTIONS } from "../../lib/actions/auth_actions.ts";
import type { SignedIn } from "../../lib/accounts/accounts.ts";
import { actionEndpoint } from "../../lib/http/action_endpoint.ts";
import { SESSION_COOKIE, sessionCookieOptions } from "../../lib/http/auth.ts";
import { define } from "../../lib/http/define.ts";

export const handler = define.handlers({
  POST: actionEndpoint({
    path: "/api/auth",
    actions: AUTH_ACTIONS,
    request: AuthRequest,
    maxBodyBytes: 4096,
    policy: "auth",
    limitBy: "ip",
    respond(c, action, result) {
      if (action === "register" || action === "login") {
        const { sessionToken } = result as SignedIn;
        setCookie(c, SESSION_COOKIE, sessionToken, sessionCookieOptions(c.var.deps.config.baseUrl));
        c.header("Cache-Control", "no-store");
      } else if (action === "logout") {
        deleteCookie(c, SESSION_COOKIE, { path: "/" });
      }
    },
  }),
});
