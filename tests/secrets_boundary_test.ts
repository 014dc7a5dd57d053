/**
 * One secrets module (issue #23): only lib/foundation/secrets.ts draws random bytes for secrets,
 * compares secrets in constant time, or spells a credential's prefix. A second copy is how the
 * tree got two `newSecret`s with swapped names and four comparisons; this scan keeps it at one.
 */

import assert from "node:assert/strict";
import { appSourceFiles, lineViolations } from "./_source_scan.ts";
import { TOKEN_KINDS } from "../lib/foundation/secrets.ts";

const HOME = "lib/foundation/secrets.ts";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The rules. A prefix with `_` is distinctive and refused anywhere (code, messages, comments); a
 * prefix without one (`reset-`) only where a string literal starts with it, since the words it is
 * made of ("reset-password") are ordinary.
 */
const RULES: readonly { rule: string; re: RegExp }[] = [
  { rule: "random bytes outside the secrets module", re: /getRandomValues/ },
  { rule: "constant-time comparison outside the secrets module", re: /timingSafeEqual/ },
  { rule: "hand-written constant-time comparison", re: /\|=[^;\n]*\^/ },
  ...Object.entries(TOKEN_KINDS).map(([kind, { prefix }]) => ({
    rule: `token prefix of ${kind} spelled out`,
    re: prefix.includes("_")
      ? new RegExp(`(?<![A-Za-z0-9])${escape(prefix)}`)
      : new RegExp(`["'\`]${escape(prefix)}`),
  })),
];

/** What breaks the rules in `files` (path → text). */
const secretsViolations = (files: Iterable<[string, string]>) => lineViolations(files, HOME, RULES);

Deno.test("secrets: only lib/foundation/secrets.ts mints, compares or names a secret", () => {
  const files = appSourceFiles({ main: true });
  assert.ok(files.length > 100, `scanned only ${files.length} files`);
  assert.deepEqual(secretsViolations(files), []);
});

Deno.test("secrets: the scan flags each kind of copy the tree used to hold", () => {
  // Lines from the copies this module replaced (lib/accounts/secrets.ts, lib/oauth/secrets.ts,
  // lib/http/page_auth.ts, lib/operations/members.ts, before issue #23).
  const old: [string, string][] = [
    ["a.ts", "const bytes = crypto.getRandomValues(new Uint8Array(32));"],
    ["b.ts", 'import { createHash, timingSafeEqual } from "node:crypto";'],
    ["c.ts", "for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);"],
    ["d.ts", 'export const SESSION_TOKEN_PREFIX = "rt_ses_";'],
    ["e.ts", 'description: "The API token (rt_ro_…); send it as a Bearer."'],
    ["f.ts", '  const password = newSecret("reset-");'],
    // Not copies: a cookie name, a command name, a word that contains a prefix.
    ["g.ts", 'export const SESSION_COOKIE = "rt_session";'],
    ["h.ts", "// `deno task admin reset-password` sets one"],
    ["i.ts", "const start_at_ = 1;"],
  ];
  assert.deepEqual(secretsViolations(old).map((v) => `${v.file}: ${v.rule}`), [
    "a.ts: random bytes outside the secrets module",
    "b.ts: constant-time comparison outside the secrets module",
    "c.ts: hand-written constant-time comparison",
    "d.ts: token prefix of session spelled out",
    "e.ts: token prefix of apiToken spelled out",
    "f.ts: token prefix of resetPassword spelled out",
  ]);
});

Deno.test("secrets: only sessionFromCookie() reads the session cookie", () => {
  const files = appSourceFiles();
  const reads = files.flatMap(([file, text]) =>
    text.split("\n").flatMap((line, i) =>
      /getCookie\([^)]*\bSESSION_COOKIE\b/.test(line) ? [`${file}:${i + 1}`] : []
    )
  );
  assert.equal(reads.length, 1, `the session cookie is read in ${reads.join(", ")}`);
  assert.match(reads[0], /^lib\/http\/kernel\/auth\.ts:/);
});
