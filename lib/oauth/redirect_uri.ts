/**
 * Redirect URIs: which ones a client may register (RFC 7591 §2, OAuth 2.1 §2.3.1, RFC 8252 §7)
 * and how a requested one is matched against the registered ones (OAuth 2.1 §4.1.1, §8.4.2).
 */

/** Loopback hosts that may use `http` and a variable port (RFC 8252 §7.3, OAuth 2.1 §8.4.2). */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Schemes never acceptable as a redirect target: they run code or read local data in the user
 * agent rather than reach an app (RFC 6749 §10.6 open redirectors, RFC 8252 §7.1 private schemes).
 */
const FORBIDDEN_SCHEMES = new Set([
  "javascript",
  "data",
  "vbscript",
  "file",
  "blob",
  "about",
  "filesystem",
  "ws",
  "wss",
  "ftp",
  "mailto",
  "tel",
]);

/**
 * C0 controls (U+0000–U+001F), DEL (U+007F) and the C1 controls (U+0080–U+009F). None may appear
 * in a URI (RFC 3986 §2: only graphic US-ASCII characters, the rest percent-encoded) nor in a name
 * shown to a person; a browser or URL parser that strips them would turn a registered
 * `https://app.example/cb\u0000` into a different target than the one that was compared.
 */
// deno-lint-ignore no-control-regex -- matching control characters is the point
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** The port of a URI with an authority (`scheme://host:port`), digits only. */
const PORT = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*:(\d+)(?:[/?#]|$)/i;

/** Longest redirect URI accepted. */
export const MAX_REDIRECT_URI_LENGTH = 2000;

/**
 * Why `uri` may not be registered, or `null` when it may: an absolute URI without fragment
 * (RFC 6749 §3.1.2), `https`, or `http` on a loopback host only (OAuth 2.1 §2.3.1, MCP
 * 2025-11-25 §Communication Security), or a private-use scheme such as `cursor://` for native
 * apps (RFC 8252 §7.1).
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length === 0 || uri.length > MAX_REDIRECT_URI_LENGTH) {
    return `must be 1 to ${MAX_REDIRECT_URI_LENGTH} characters`;
  }
  if (CONTROL_CHARACTER.test(uri)) return "contains a control character";
  if (/[\s<>"\\^`{|}]/.test(uri)) return "contains characters not allowed in a URI";
  // RFC 6749 §3.1.2: "The endpoint URI MUST NOT include a fragment component."
  if (uri.includes("#")) return "must not contain a fragment (#)";
  // RFC 3986 §3.2.3 / RFC 6335 §6: a port is 1–65535. Checked before parsing so the answer says
  // so; a URI no redirect can reach must never match (issue #19 item 7: 127.0.0.1:99999 matched
  // a loopback registration, and every redirect to it then failed with a 500).
  const port = PORT.exec(uri)?.[1];
  if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535)) {
    return "has a port outside 1–65535";
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URI";
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (url.username || url.password) return "must not contain user information";
  if (scheme === "https") {
    if (!url.hostname) return "has no host";
    return null;
  }
  if (scheme === "http") {
    // OAuth 2.1 §2.3.1 / §8.4.2: plain http only for the loopback interface of a native app.
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : "http is allowed only on loopback hosts (127.0.0.1, [::1], localhost); use https";
  }
  if (FORBIDDEN_SCHEMES.has(scheme)) return `the ${scheme}: scheme is not allowed`;
  // RFC 8252 §7.1: private-use URI schemes for native apps (e.g. cursor://, vscode://).
  if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) return "has an invalid scheme";
  return null;
}

const LOOPBACK_URI = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::(\d{1,5}))?(\/[^#]*)?$/;

/**
 * Whether a requested redirect URI matches a registered one: simple string comparison
 * (OAuth 2.1 §4.1.1, RFC 3986 §6.2.1 — no case folding, no prefix match, no normalisation), with
 * the single exception of loopback redirects, whose port may differ (OAuth 2.1 §8.4.2, RFC 8252
 * §7.3). The loopback host, path and query must still match exactly, character for character.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const a = LOOPBACK_URI.exec(registered);
  const b = LOOPBACK_URI.exec(requested);
  if (!a || !b) return false;
  return a[1] === b[1] && (a[3] ?? "") === (b[3] ?? "");
}

/** The registered redirect URI `requested` matches, or `null`. */
export function findRedirectUri(registered: readonly string[], requested: string): string | null {
  // A URI that could not be registered never matches, even a (legacy) registration holding it
  // or a loopback one whose port may vary: a control character, a port outside 1–65535, or
  // anything `URL` cannot parse is a target no redirect may go to (RFC 6749 §4.1.2.1).
  if (redirectUriProblem(requested) !== null) return null;
  return registered.find((r) => redirectUriMatches(r, requested)) ?? null;
}

/** What the consent screen shows as the destination: the host, or `scheme:` for native apps. */
export function redirectDisplayHost(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || url.protocol;
  } catch {
    return uri;
  }
}
