/**
 * Rendering the member web app's pages (DESIGN §14): a page response, the wrapper every page
 * handler runs in — any failure becomes an HTML page, never JSON or a stack, and a signed-out
 * visit a 303 to sign in — and the app-wide 404 and 405 answers.
 */

import type { VNode } from "preact";
import { DEFAULT_DATE_LOCALE, withDateLocale } from "../../../components/dates.ts";
import { ErrorPage } from "../../../components/ErrorPage.tsx";
import { AppError } from "../../foundation/errors.ts";
import { redirectTo, SignInRequired } from "./browser_session.ts";
import type { AppContext } from "../kernel/define.ts";
import { errorParts, errorResponse, logInternal } from "../kernel/errors.ts";
import { namesMediaType } from "../kernel/media_type.ts";
import { renderPage } from "../kernel/render.tsx";

/**
 * Headers of every HTML page: never cached (member data). The CSP, framing and referrer headers
 * are the service's one HTML policy, set by the middleware (lib/http/kernel/security_headers.ts): the
 * pages need no exception — no inline script and no `style` attribute.
 */
function pageHeaders(c: AppContext): void {
  c.header("Cache-Control", "no-store");
}

/** Renders a page (a `Document` tree) as the response. */
export function pageResponse(
  c: AppContext,
  node: VNode,
  opts: { status?: number } = {},
): Response {
  pageHeaders(c);
  const html = withDateLocale(c.var.dateLocale ?? DEFAULT_DATE_LOCALE, () => renderPage(node));
  return c.html(html, (opts.status ?? 200) as 200);
}

/**
 * Wraps a page handler so that any failure becomes an HTML error page with the error's status
 * (403 for a refused form, 429 when rate-limited, 500 without details) — never JSON, never a stack
 * — and a signed-out visit (`SignInRequired`, thrown by `requirePageMember`) a 303 to sign in.
 */
export function htmlPage(
  handle: (c: AppContext) => Promise<Response> | Response,
): (c: AppContext) => Promise<Response> {
  return async (c) => {
    try {
      return await handle(c);
    } catch (err) {
      if (err instanceof SignInRequired) {
        c.header("Cache-Control", "no-store");
        return c.redirect(err.location, 303);
      }
      const parts = errorParts(err, "none");
      logInternal(parts, "page failed", c.var.requestId);
      for (const [name, value] of parts.headers) c.header(name, value);
      const message = parts.error.code === "internal"
        ? "Something went wrong on our side. Try again."
        : parts.publicMessage;
      return pageResponse(c, ErrorPage({ status: parts.status, message }), {
        status: parts.status,
      });
    }
  };
}

/**
 * The answer for a method a path does not serve (RFC 9110 §15.5.6, `Allow` lists the others). A
 * browser that GETs a form-only page address — reloading `/app/settings/import` from the address
 * bar after a refused form or a preview — gets an HTML page with a way back (DESIGN §14: every
 * failure of a page is an HTML page); every other client the JSON envelope.
 */
export function methodNotAllowedResponse(c: AppContext, allowed: readonly string[]): Response {
  const wantsHtml = namesMediaType(c, "text/html");
  const res = wantsHtml && !c.req.path.startsWith("/api/") && c.req.method === "GET"
    ? pageResponse(
      c,
      ErrorPage({ status: 405, message: "This address only takes a form; open the page again." }),
      { status: 405 },
    )
    : errorResponse(
      c,
      new AppError("method_not_allowed", `This path accepts ${allowed.join(", ")}.`, {
        details: { allow: allowed },
      }),
    );
  res.headers.set("Allow", allowed.join(", "));
  return res;
}

/**
 * The answer for a path no route serves: a person's browser (a non-API path asking for HTML) gets
 * the 404 page with a way back — `/app/` goes to `/app` — and every other client the JSON envelope.
 */
export function notFoundResponse(c: AppContext): Response {
  const path = c.req.path;
  const wantsHtml = namesMediaType(c, "text/html");
  if (!wantsHtml || path.startsWith("/api/") || c.req.method !== "GET") {
    return errorResponse(c, new AppError("not_found", `No such path: ${path}`));
  }
  if (path === "/app/") return redirectTo(c, "/app");
  return pageResponse(
    c,
    ErrorPage({ status: 404, message: "There is no page at this address." }),
    { status: 404 },
  );
}
