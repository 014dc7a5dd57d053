/**
 * The browser-facing security headers, decided once for every response by its content type (not
 * per route), so an HTML page added later is covered without anyone remembering to.
 */

/**
 * The Content-Security-Policy of an HTML page. Nothing loads from elsewhere and nothing runs
 * inline (`script-src 'self'`: the consent island is a same-origin module); `frame-ancestors
 * 'none'` forbids framing (clickjacking: RFC 6749 §10.13, OAuth 2.1 §7.7; CSP Level 3 §6.4.2);
 * `base-uri 'none'` stops a `<base>` from re-pointing relative links; `form-action` lists where a
 * form — and the redirect that follows its submission — may go.
 */
export function htmlContentSecurityPolicy(formAction = "'self'"): string {
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; ` +
    `connect-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
}

const DEFAULT_HTML_CSP = htmlContentSecurityPolicy();

/**
 * The CSP of the service worker's own script (`/sw.js`, issue #24). A worker is governed by the
 * policy delivered with its script, not by the page's (CSP Level 3 §4.2.2, "initialize a global
 * object's CSP list"): it may fetch only this origin (`connect-src`, the pages and the queued
 * changes it sends), show the notification icon from here (`img-src`), and load no script at all
 * (`script-src 'none'`: no `importScripts`).
 */
export const SERVICE_WORKER_CSP =
  "default-src 'none'; connect-src 'self'; img-src 'self'; script-src 'none'";

/**
 * Adds the headers every response carries: `X-Content-Type-Options: nosniff` (so a browser never
 * runs a JSON or Markdown body as script or HTML, Fetch standard §3.7), and on HTML the default
 * CSP, `X-Frame-Options: DENY` (framing, for browsers without CSP 2) and `Referrer-Policy:
 * same-origin` (a URL with an OAuth query never leaves the site in a `Referer`). A page that set
 * a stricter or more specific value of one of these (the consent screen's `form-action`) keeps it.
 */
export function writeSecurityHeaders(headers: Headers): void {
  headers.set("X-Content-Type-Options", "nosniff");
  const type = headers.get("content-type");
  if (type === null || !/^\s*text\/html\b/i.test(type)) return;
  if (!headers.has("content-security-policy")) {
    headers.set("Content-Security-Policy", DEFAULT_HTML_CSP);
  }
  if (!headers.has("x-frame-options")) headers.set("X-Frame-Options", "DENY");
  if (!headers.has("referrer-policy")) headers.set("Referrer-Policy", "same-origin");
}
