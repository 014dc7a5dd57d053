/**
 * Generates `lib/accounts/common_passwords.gen.json`, the password blocklist (issue #19), from the
 * maintained `@zxcvbn-ts/language-common` package: its `passwords-common` list, lower-cased, only
 * the entries the length rule lets through (8–256 characters), most frequent first. Shipping the
 * extract keeps start-up and the sign-up path fast (the package decompresses all its lists on
 * import: 0.3–0.5 s of CPU here); bumping the package in deno.json and running
 * `deno task common-passwords` brings its updates, and a test fails while the file is stale.
 */

import { dictionary } from "@zxcvbn-ts/language-common";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../lib/accounts/common_passwords.ts";

const TARGET = new URL("../lib/accounts/common_passwords.gen.json", import.meta.url);

/** The blocklist as the package gives it today. */
export function blocklistFromPackage(): string[] {
  const list = (dictionary as Record<string, string[]>)["passwords-common"];
  if (!Array.isArray(list) || list.length < 10_000) {
    throw new Error("@zxcvbn-ts/language-common no longer has its passwords-common list");
  }
  const out = new Set<string>();
  for (const p of list) {
    if (p.length >= PASSWORD_MIN_LENGTH && p.length <= PASSWORD_MAX_LENGTH) {
      out.add(p.toLowerCase());
    }
  }
  return [...out];
}

/** The file's text, as `deno fmt` writes a JSON array (one string per line). */
export function renderBlocklist(list: string[]): string {
  return `[\n${list.map((p) => `  ${JSON.stringify(p)}`).join(",\n")}\n]\n`;
}

if (import.meta.main) {
  const list = blocklistFromPackage();
  await Deno.writeTextFile(TARGET, renderBlocklist(list));
  console.log(`lib/accounts/common_passwords.gen.json: ${list.length} passwords`);
}
