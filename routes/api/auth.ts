/**
 * `POST /api/auth`: register, login, logout, session (DESIGN §7, spec "POST /api/auth"), and the
 * account-wide changePassword and deleteAccount (issue #9).
 */

import { deleteCookie, setCookie } from "hono/cookie";
import {
  describeSession,
  loginMember,
  logoutSession,
  registerMember,
} from "../../lib/accounts/accounts.ts";
import { changePassword, deleteAccount } from "../../lib/accounts/account_changes.ts";
import { AuthRequest } from "../../lib/accounts/auth_messages.ts";
import { requireSession, SESSION_COOKIE, sessionCookieOptions } from "../../lib/http/auth.ts";
import { readJsonBody } from "../../lib/http/body.ts";
import { define } from "../../lib/http/define.ts";
import { applyDeprecation } from "../../lib/http/deprecation.ts";
import { enforceRateLimit } from "../../lib/http/rate_limit.ts";

export const handler = define.handlers({
  async POST(c) {
    // Counted before parsing, so failed guesses spend the quota too (OWASP brute-force advice).
    await enforceRateLimit(c, "auth", c.var.clientIp);
    const body = AuthRequest.parse(await readJsonBody(c, 4096));
    applyDeprecation(c, "action", `/api/auth#${body.action}`);
    const { kv, clock, config } = c.var.deps;
    const accounts = {
      kv,
      clock,
      passwordIterations: config.passwordIterations,
      defaultTier: config.defaultTier,
    };
    switch (body.action) {
      case "register":
      case "login": {
        const signedIn = body.action === "register"
          ? await registerMember(accounts, body.username, body.password, body.timezone)
          : await loginMember(accounts, body.username, body.password);
        setCookie(c, SESSION_COOKIE, signedIn.sessionToken, sessionCookieOptions(config.baseUrl));
        c.header("Cache-Control", "no-store");
        return c.json(signedIn, body.action === "register" ? 201 : 200);
      }
      case "logout": {
        const session = await requireSession(c);
        await logoutSession(kv, session.sessionToken);
        deleteCookie(c, SESSION_COOKIE, { path: "/" });
        return c.json({ signedOut: true });
      }
      case "session": {
        const session = await requireSession(c);
        return c.json(await describeSession(kv, session.memberId, session.expiresAt));
      }
      case "changePassword": {
        const session = await requireSession(c);
        await changePassword(kv, {
          clock,
          memberId: session.memberId,
          currentPassword: body.currentPassword,
          newPassword: body.newPassword,
          keepSessionToken: session.sessionToken,
          iterations: config.passwordIterations,
        });
        return c.json({ passwordChanged: true, otherSessionsSignedOut: true });
      }
      case "deleteAccount": {
        const session = await requireSession(c);
        await deleteAccount(kv, {
          memberId: session.memberId,
          confirmUsername: body.confirmUsername,
        });
        deleteCookie(c, SESSION_COOKIE, { path: "/" });
        return c.json({ deleted: true });
      }
    }
  },
});
