/**
 * One security boundary (issue #23): only the credentials module, lib/http/kernel/auth.ts, reads a
 * bearer token or the session cookie, or asks a token verifier directly; everything else calls
 * `authenticate`, `sessionFromCookie` or `isOperator`. The verifiers' owner, lib/record/member_access.ts
 * (it joins each credential to its member's record version), is the one other caller of them. A second reader is how the tree got five
 * "who is calling" entry points that each sniffed prefixes and repeated the scope check.
 */

import assert from "node:assert/strict";
import { appSourceFiles, lineViolations } from "./_source_scan.ts";

const HOME = "lib/http/kernel/auth.ts";
const VERIFIERS_OWNER = "lib/record/member_access.ts";
const ASKS_A_VERIFIER = "asks a token verifier directly";

/** What only the credentials module may do, as it shows in a line of source. */
const RULES: readonly { rule: string; re: RegExp }[] = [
  { rule: "reads the Authorization header", re: /(header|get)\(\s*["'`]authorization["'`]/i },
  { rule: "reads the Cookie header", re: /(header|get)\(\s*["'`]cookie["'`]/i },
  {
    rule: "reads the session cookie",
    re: /getCookie\(\s*\w+\s*(,\s*(SESSION_COOKIE|["'`]rt_session))?\s*\)/,
  },
  { rule: "parses a bearer token", re: /\bbearerTokenOf\b|\/\^Bearer/ },
  {
    rule: ASKS_A_VERIFIER,
    re:
      /\.access\.(apiToken|accessToken|session)\(|\.(tokens\.resolve|accessTokens\.verify|sessions\.resolve(WithMember)?)\(|accessTokenVerifierFor/,
  },
];

/** What breaks the rules in `files` (path → text). */
const credentialViolations = (files: Iterable<[string, string]>) =>
  lineViolations(files, HOME, RULES).filter((v) =>
    !(v.file === VERIFIERS_OWNER && v.rule === ASKS_A_VERIFIER)
  );

Deno.test("credentials: only lib/http/kernel/auth.ts reads a bearer token or the session cookie", () => {
  const files = appSourceFiles({ main: true });
  assert.ok(files.some(([f]) => f === HOME), "the credentials module was not scanned");
  assert.ok(files.length > 100, `scanned only ${files.length} files`);
  assert.deepEqual(credentialViolations(files), []);
});

Deno.test("credentials: the scan flags each kind of reader the tree used to hold", () => {
  // Lines from the readers `authenticate` replaced (before issue #23's boundary work).
  const old: [string, string][] = [
    ["lib/http/operator.ts", "  const sent = bearerTokenOf(c);"],
    ["lib/http/page_auth.ts", "  const token = getCookie(c, SESSION_COOKIE);"],
    [
      "lib/http/mcp/mcp_transport.ts",
      "  const principal = await c.var.deps.access.tokens.resolve(t);",
    ],
    ["lib/http/x.ts", '  const h = c.req.header("Authorization");'],
    ["lib/http/x.ts", '  const h = req.headers.get("cookie");'],
    ["lib/http/x.ts", "  const all = getCookie(c);"],
    ["lib/http/x.ts", "  await accessTokenVerifierFor(kv, clock).verify(token);"],
    ["lib/http/x.ts", "  const granted = await c.var.deps.access.apiToken(token);"],
  ];
  const found = credentialViolations(old);
  assert.deepEqual(found.map((v) => v.line), [1, 1, 1, 1, 1, 1, 1, 1]);
  assert.deepEqual(credentialViolations([[HOME, old[0][1]]]), []);
  // Writing the cookie, or another cookie's read, is not a read of the session.
  assert.deepEqual(
    credentialViolations([[
      "lib/http/y.ts",
      "setCookie(c, SESSION_COOKIE, t);\ngetCookie(c, FLASH_COOKIE)",
    ]]),
    [],
  );
});
