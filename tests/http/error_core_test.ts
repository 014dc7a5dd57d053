/**
 * The one error core (lib/http/kernel/errors.ts, issue #23): the challenge and `Retry-After` of every
 * dialect come from `errorParts`, and an `error_description` is one valid RFC 6750 §3 parameter
 * whatever the message holds. The REST and MCP wire forms are held by tests/http/accounts_test.ts
 * and tests/http/mcp_test.ts (exact strings).
 */

import assert from "node:assert/strict";
import { AppError } from "../../lib/foundation/errors.ts";
import { challengeFor, errorParts, quotedString } from "../../lib/http/kernel/errors.ts";

/**
 * The auth-params of one challenge, read by RFC 9110 §11.2 / §5.6.4 rules: `name=token` or
 * `name=quoted-string` with quoted-pairs unescaped. Throws on anything else.
 */
function authParams(header: string): Map<string, string> {
  const m = /^Bearer (.*)$/.exec(header);
  assert.ok(m, `not a Bearer challenge: ${header}`);
  const params = new Map<string, string>();
  const re =
    /\s*([A-Za-z_]+)=(?:"((?:[\t \x21\x23-\x5b\x5d-\x7e]|\\[\t \x21-\x7e])*)"|([!#$%&'*+.^_`|~0-9A-Za-z-]+))\s*(,|$)/y;
  let at = 0;
  while (at < m[1].length) {
    re.lastIndex = at;
    const p = re.exec(m[1]);
    assert.ok(p, `unparsable at ${at}: ${m[1].slice(at)}`);
    params.set(p[1], p[2] !== undefined ? p[2].replace(/\\(.)/g, "$1") : p[3]);
    at = re.lastIndex;
  }
  return params;
}

/** RFC 6750 §3: `error_description` is limited to %x20-21 / %x23-5B / %x5D-7E. */
const RFC6750_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

const MCP = { resourceMetadata: "https://rt.example/.well-known/oauth-protected-resource/api/mcp" };

Deno.test("challengeFor() sends one valid error_description whatever the message holds", async (t) => {
  const awkward = ['the "x" token', "a back\\slash", "ends in a backslash\\", "an em — dash"];
  for (const [dialect, of] of [["REST", "rest"], ["MCP", MCP]] as const) {
    for (const message of awkward) {
      await t.step(`${dialect}: ${JSON.stringify(message)}`, () => {
        const value = challengeFor(new AppError("invalid_token", message), of)!;
        const headers = new Headers();
        headers.set("WWW-Authenticate", value); // a ByteString, or this throws
        const params = authParams(headers.get("WWW-Authenticate")!);
        assert.equal(params.get("error"), "invalid_token");
        const description = params.get("error_description")!;
        assert.match(description, RFC6750_TEXT);
        assert.equal(description.length, message.length);
      });
    }
  }
});

Deno.test("challengeFor() gives each dialect its challenge and no other", () => {
  const none = new AppError("unauthorized", "no token");
  const scope = new AppError("insufficient_scope", "no read");
  assert.equal(challengeFor(none, "rest"), 'Bearer realm="routine-tracker"');
  assert.equal(challengeFor(scope, "rest"), null); // REST challenges only its 401s
  assert.equal(
    challengeFor(scope, MCP),
    `Bearer realm="routine-tracker-mcp", resource_metadata="${MCP.resourceMetadata}", ` +
      'error="insufficient_scope", scope="read"',
  );
  assert.equal(challengeFor(new AppError("forbidden", "no"), MCP), null);
  assert.equal(challengeFor(none, "none"), null);
});

Deno.test("quotedString() escapes a quote and a backslash as quoted-pairs (RFC 9110 §5.6.4)", () => {
  assert.equal(quotedString('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(quotedString("plain"), '"plain"');
});

Deno.test("errorParts() writes Retry-After once for every dialect, from the error", async (t) => {
  const cases = [
    [new AppError("rate_limited", "slow down", { details: { retryAfterSeconds: 7 } }), "7"],
    [new AppError("rate_limited", "slow down", { details: { retryAfterSeconds: 0 } }), "1"],
    [new AppError("service_busy", "busy"), "1"],
    [new AppError("service_busy", "busy", { details: { retryAfterSeconds: 3 } }), "3"],
    [new AppError("invalid_request", "bad"), null],
  ] as const;
  for (const  of of["rest", "none", MCP] as const) {
    await t.step(`challenge ${typeof of === "string" ? of : "mcp"}`, () => {
      for (const [error, expected] of cases) {
        assert.equal(errorParts(error, of).headers.get("Retry-After"), expected, error.message);
      }
    });
  }
});

Deno.test("errorParts() logs an internal fault and hides it; an expected error is not logged", () => {
  const bug = new TypeError("secret detail");
  const parts = errorParts(bug, "rest");
  assert.equal(parts.status, 500);
  assert.equal(parts.publicMessage, "Internal server error");
  assert.equal(parts.logAs, bug);
  assert.equal(errorParts(new AppError("not_found", "no"), "rest").logAs, null);
});
