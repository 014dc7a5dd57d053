/**
 * The blocklist of common passwords (issue #19). NIST SP 800-63B §5.1.1.2: a verifier SHALL
 * compare a new password against values "obtained from previous breach corpuses" and
 * "commonly-used" ones, and refuse a match. The list is `passwords-common` of the maintained
 * `@zxcvbn-ts/language-common` package (zxcvbn's most frequent passwords of leaked corpora, MIT),
 * extracted by `deno task common-passwords` (scripts/gen_common_passwords.ts) into
 * `common_passwords.gen.json`: the entries of 8 or more characters, lower-cased. The service uses
 * only the list — an exact, case-insensitive lookup — not zxcvbn's scoring, so the rule a member is
 * told ("not one of the most common passwords") is exactly the rule applied.
 *
 * The JSON is parsed when this module is imported (a few ms); the `Set` is built on the first
 * lookup, and each lookup after is one `Set.has`.
 */

import list from "./common_passwords.gen.json" with { type: "json" };

/** Shortest password accepted (DESIGN §7). */
export const PASSWORD_MIN_LENGTH = 8;
/** Longest password accepted: long passphrases are welcome (NIST SP 800-63B §5.1.1.2). */
export const PASSWORD_MAX_LENGTH = 256;

/** What a member is told, beside the password field and in the API's `error`. */
export const COMMON_PASSWORD_MESSAGE =
  "Password: this is one of the most common passwords, the first ones an attacker tries. " +
  "Choose another; a few unrelated words make a good one.";

let blocklist: ReadonlySet<string> | undefined;

/**
 * Whether `password` is on the blocklist, compared case-insensitively (`Password` is too).
 *
 * @example
 * ```ts
 * isCommonPassword("12345678"); // true
 * isCommonPassword("a long passphrase"); // false
 * ```
 */
export function isCommonPassword(password: string): boolean {
  blocklist ??= new Set(list as string[]);
  return blocklist.has(password.toLowerCase());
}
