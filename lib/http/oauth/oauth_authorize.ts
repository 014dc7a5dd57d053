/**
 * The browser side of `GET/POST /api/oauth/authorize`: validate the request, sign the member in
 * if needed, show the consent screen, apply the decision (OAuth 2.1 §4.1; DESIGN §10).
 */

import { setCookie } from "hono/cookie";
import { z } from "zod";
import {
  getMember,
  loginMember,
  Password,
  registerMember,
  Username,
} from "../../accounts/accounts.ts";
import { AppError } from "../../foundation/errors.ts";
import {
  type AuthorizationCheck,
  checkAuthorizationRequest,
  decideConsent,
} from "../../oauth/authorize.ts";
import { createConsentTicket } from "../../oauth/grants.ts";
import { redirectDisplayHost } from "../../oauth/redirect_uri.ts";
import { isSameOrigin, SESSION_COOKIE, sessionCookieOptions } from "../kernel/auth.ts";
import { readFormBody } from "../kernel/body.ts";
import type { AppContext } from "../kernel/define.ts";
import { accountContextOf } from "../kernel/deps.ts";
import { errorParts, logInternal, withErrorHeaders } from "../kernel/errors.ts";
import { browserSessionOf, oauthContextOf } from "./oauth_context.ts";
import {
  authorizationPageHeaders,
  renderAuthorizationErrorPage,
  renderConsentPage,
  renderSignInPage,
} from "./oauth_pages.tsx";
import { enforceRateLimit, passwordGuessesOf } from "../kernel/rate_limit.ts";

/** Largest consent or sign-in form accepted: its fields are short. */
export const MAX_AUTHORIZE_FORM_BYTES = 8 * 1024;

/** What the consent form posts (form-encoded; works without JavaScript). */
export const AuthorizeForm = z.discriminatedUnion("action", [
  z.object({
    action: z.enum(["sign_in", "sign_up"]),
    username: z.string().max(64),
    password: z.string().max(256),
  }),
  z.object({ action: z.enum(["approve", "deny"]), consent_token: z.string().max(200) }),
]);

/** A parsed consent or sign-in form. */
export type AuthorizeFormInput = z.infer<typeof AuthorizeForm>;

/** What the `read` scope allows, in words a member reads on the consent screen. */
const READ_PERMISSIONS = [
  "Read your columns, daily entries and notes",
  "Run the 18 read-only analysis tools (streaks, trends, correlations, summaries) on your record",
];

function html(body: string, status: number, redirectTarget?: string): Response {
  return new Response(body, { status, headers: authorizationPageHeaders(redirectTarget) });
}

function errorPage(error: string, description: string, status = 400): Response {
  return html(renderAuthorizationErrorPage({ error, description }), status);
}

/** The authorization endpoint URL with the request's own query: where the page forms post. */
function selfUrl(c: AppContext): string {
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}

/** Validates the request's query, turning a non-redirectable failure into the error page. */
async function check(c: AppContext): Promise<AuthorizationCheck> {
  return await checkAuthorizationRequest(oauthContextOf(c), c.req.queries());
}

function answerInvalid(checked: Exclude<AuthorizationCheck, { kind: "valid" }>): Response {
  if (checked.kind === "page") return errorPage(checked.error, checked.description);
  // RFC 6749 §4.1.2.1: the client and redirect URI are verified, so the error goes to the client.
  return new Response(null, {
    status: 302,
    headers: { Location: checked.location, "Cache-Control": "no-store" },
  });
}

/** `GET`: the sign-in page, the consent screen, or an error (redirected only when safe). */
export async function serveAuthorizePage(c: AppContext): Promise<Response> {
  try {
    await enforceRateLimit(c, "oauth", c.var.clientIp);
    const checked = await check(c);
    if (checked.kind !== "valid") return answerInvalid(checked);
    const session = await browserSessionOf(c);
    if (!session) {
      return html(
        renderSignInPage({ formAction: selfUrl(c), clientName: checked.client.clientName }),
        200,
      );
    }
    const { kv, clock } = c.var.deps;
    const member = await getMember(kv, session.memberId);
    const token = await createConsentTicket({
      kv,
      clock,
      memberId: session.memberId,
      sessionBinding: session.sessionBinding,
      request: checked.request,
    });
    const redirectUri = checked.request.redirectUri;
    const redirectHost = redirectDisplayHost(redirectUri);
    const localRedirect = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)[:/]/.test(redirectUri) ||
      !/^https?:/.test(redirectUri);
    return html(
      renderConsentPage({
        formAction: selfUrl(c),
        consentToken: token,
        clientName: checked.client.clientName,
        clientId: checked.client.clientId,
        redirectHost,
        localRedirect,
        username: member.username,
        permissions: READ_PERMISSIONS,
      }),
      200,
      redirectUri,
    );
  } catch (err) {
    return pageForError(c, err);
  }
}

/**
 * `POST`: sign in / sign up and come back, or approve / deny the consent screen. The rate limit
 * and the origin check come before the body is read, so an unauthenticated or cross-site upload
 * costs nothing; the body itself is capped (`MAX_AUTHORIZE_FORM_BYTES`) while it streams.
 */
export async function submitAuthorizeForm(c: AppContext): Promise<Response> {
  try {
    await enforceRateLimit(c, "oauth", c.var.clientIp);
    // DESIGN §7: a cookie-authenticated state change must come from our own origin (CSRF, and
    // login CSRF for the sign-in form).
    if (!isSameOrigin(c, "consentForm")) {
      return errorPage(
        "forbidden",
        "This form was submitted from another site, so it was refused.",
        403,
      );
    }
    const form = AuthorizeForm.safeParse(await readFormBody(c, MAX_AUTHORIZE_FORM_BYTES));
    if (!form.success) {
      return errorPage(
        "invalid_request",
        "The form is incomplete; go back to the app and start again.",
      );
    }
    const input = form.data;
    return "consent_token" in input ? await submitConsent(c, input) : await submitSignIn(c, input);
  } catch (err) {
    return pageForError(c, err);
  }
}

/** The consent screen's decision: back to the client with a code or `access_denied`. */
async function submitConsent(
  c: AppContext,
  input: Extract<AuthorizeFormInput, { consent_token: string }>,
): Promise<Response> {
  const session = await browserSessionOf(c);
  if (!session) {
    return errorPage(
      "unauthorized",
      "You are signed out. Go back to the app and start again.",
      401,
    );
  }
  const location = await decideConsent({
    ctx: oauthContextOf(c),
    ticket: input.consent_token,
    sessionBinding: session.sessionBinding,
    memberId: session.memberId,
    approve: input.action === "approve",
  });
  return new Response(null, {
    status: 303,
    headers: { Location: location, "Cache-Control": "no-store" },
  });
}

/** The sign-in / sign-up form: a session cookie and back to the same authorization request. */
async function submitSignIn(
  c: AppContext,
  input: Exclude<AuthorizeFormInput, { consent_token: string }>,
): Promise<Response> {
  const { action, username: typedName, password: typedPassword } = input;
  const checked = await check(c);
  if (checked.kind !== "valid") return answerInvalid(checked);
  // Password guesses spend the `auth` quota too, as on /api/auth (DESIGN §6).
  await enforceRateLimit(c, "auth", c.var.clientIp);
  const accounts = accountContextOf(c.var.deps, passwordGuessesOf(c));
  const again = (error: string, status: number) =>
    html(
      renderSignInPage({
        formAction: selfUrl(c),
        clientName: checked.client.clientName,
        error,
        username: typedName,
      }),
      status,
    );
  let signedIn;
  try {
    if (action === "sign_up") {
      const username = Username.safeParse(typedName);
      const password = Password.safeParse(typedPassword);
      if (!username.success) return again(username.error.issues[0].message, 400);
      if (!password.success) return again(password.error.issues[0].message, 400);
      signedIn = await registerMember(accounts, {
        username: username.data,
        password: password.data,
      });
    } else {
      signedIn = await loginMember(accounts, typedName, typedPassword);
    }
  } catch (err) {
    if (
      err instanceof AppError &&
      (err.code === "invalid_credentials" || err.code === "username_taken")
    ) {
      return again(err.message, err.status);
    }
    throw err;
  }
  setCookie(
    c,
    SESSION_COOKIE,
    signedIn.sessionToken,
    sessionCookieOptions(c.var.deps.config.baseUrl),
  );
  // 303: the browser follows with a GET of the same authorization request, now signed in.
  c.header("Location", selfUrl(c));
  c.header("Cache-Control", "no-store");
  return c.body(null, 303);
}

/** Any failure on these pages is an HTML page (never JSON, never a stack trace). */
function pageForError(c: AppContext, err: unknown): Response {
  const parts = errorParts(err, "none");
  logInternal(parts, "authorize failed", c.var.requestId);
  const e = parts.error;
  const res = errorPage(
    e.code,
    e.code === "internal" ? "Something went wrong on our side. Try again." : parts.publicMessage,
    parts.status,
  );
  return withErrorHeaders(res, parts);
}
