/** The OAuth logic's view of the app, built from a request's dependencies. */

import { findSession } from "../../accounts/accounts.ts";
import type { AuthorizeContext } from "../../oauth/authorize.ts";
import { hashSecret } from "../../foundation/secrets.ts";
import { sessionFromCookie } from "../kernel/auth.ts";
import type { AppContext } from "../kernel/define.ts";

/** KV, clock, issuer and CIMD fetcher. */
export function oauthContextOf(c: AppContext): AuthorizeContext {
  const { kv, clock, config, clientMetadataFetcher } = c.var.deps;
  return {
    kv,
    clock,
    baseUrl: config.baseUrl,
    fetchClientDocument: clientMetadataFetcher,
  };
}

/** The member signed in through the browser's session cookie, or `null`. */
export interface BrowserSession {
  memberId: string;
  /** SHA-256 of the session token: what a consent ticket is bound to. */
  sessionBinding: string;
}

/**
 * The session of the session cookie. No Origin check here: the authorization request is a
 * top-level navigation from another site by design (the cookie is SameSite=Lax, so it is sent),
 * and a GET only shows a page. The state-changing POST checks the `consentForm` same-origin rule
 * (lib/http/kernel/auth.ts).
 */
export async function browserSessionOf(c: AppContext): Promise<BrowserSession | null> {
  const token = sessionFromCookie(c, "page");
  if (!token) return null;
  const { kv, clock } = c.var.deps;
  const session = await findSession(kv, clock, token);
  return session ? { memberId: session.memberId, sessionBinding: hashSecret(token) } : null;
}
