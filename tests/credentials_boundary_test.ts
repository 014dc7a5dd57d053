/**
 * One security boundary (issue #23): only the credentials module, lib/http/auth.ts, reads a
 * bearer token or the session cookie, or asks a token verifier directly; everything else calls
 * `authenticate`, `sessionFromCookie` or `isOperator`. A second reader is how the tree got five
 * "who is calling" entry points that each sniffed prefixes and repeated the scope check.
 */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const SOURCE_DIRS = ["lib", "routes", "components", "islands"];
const HOME = "lib/http/auth.ts";

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
    rule: "asks a token verifier directly",
    re: /\.(tokens\.resolve|accessTokens\.verify|sessions\.resolve)\(|accessTokenVerifierFor/,
  },
];

interface Violation {
  file: string;
  line: number;
  rule: string;
}

/** What breaks the rules in `files` (path → text). */
function credentialViolations(files: Iterable<[string, string]>): Violation[] {
  const found: Violation[] = [];
  for (const [file, text] of files) {
    if (file === HOME) continue;
    text.split("\n").forEach((lineText, i) => {
      for (const { rule, re } of RULES) {
        if (re.test(lineText)) found.push({ file, line: i + 1, rule });
      }
    });
  }
  return found;
}

function isTestSupport(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return /_test\.tsx?$/.test(name) || name.startsWith("_test");
}

function* sourceFiles(dir: string): Generator<[string, string]> {
  for (const e of [...Deno.readDirSync(new URL(dir + "/", ROOT))]) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(e.name) && !isTestSupport(path)) {
      yield [path, Deno.readTextFileSync(new URL(path, ROOT))];
    }
  }
}

Deno.test("credentials: only lib/http/auth.ts reads a bearer token or the session cookie", () => {
  const files = [
    ...SOURCE_DIRS.flatMap((d) => [...sourceFiles(d)]),
    ["main.ts", Deno.readTextFileSync(new URL("main.ts", ROOT))] as [string, string],
  ];
  assert.ok(files.some(([f]) => f === HOME), "the credentials module was not scanned");
  assert.ok(files.length > 100, `scanned only ${files.length} files`);
  assert.deepEqual(credentialViolations(files), []);
});

Deno.test("credentials: the scan flags each kind of reader the tree used to hold", () => {
  // Lines from the readers `authenticate` replaced (before issue #23's boundary work).
  const old: [string, string][] = [
    ["lib/http/operator.ts", "  const sent = bearerTokenOf(c);"],
    ["lib/http/page_auth.ts", "  const token = getCookie(c, SESSION_COOKIE);"],
    ["lib/http/mcp_transport.ts", "  const principal = await c.var.deps.access.tokens.resolve(t);"],
    ["lib/http/x.ts", '  const h = c.req.header("Authorization");'],
    ["lib/http/x.ts", '  const h = req.headers.get("cookie");'],
    ["lib/http/x.ts", "  const all = getCookie(c);"],
    ["lib/http/x.ts", "  await accessTokenVerifierFor(kv, clock).verify(token);"],
  ];
  const found = credentialViolations(old);
  assert.deepEqual(found.map((v) => v.line), [1, 1, 1, 1, 1, 1, 1]);
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
