import assert from "node:assert/strict";
import { blocklistFromPackage, renderBlocklist } from "../scripts/gen_common_passwords.ts";
import { isCommonPassword } from "../lib/accounts/common_passwords.ts";

Deno.test("generated files: common_passwords.gen.json is up to date with @zxcvbn-ts/language-common", async () => {
  const onDisk = await Deno.readTextFile(
    new URL("../lib/accounts/common_passwords.gen.json", import.meta.url),
  );
  assert.equal(onDisk, renderBlocklist(blocklistFromPackage()), "run `deno task common-passwords`");
});

Deno.test("isCommonPassword() refuses the issue's two, in any case, and keeps passphrases", () => {
  for (const p of ["password", "12345678", "PASSWORD", "Password", "qwertyuiop", "iloveyou"]) {
    assert.equal(isCommonPassword(p), true, p);
  }
  for (const p of ["a long passphrase", "tulip-harbour-42", "correct horse battery staple"]) {
    assert.equal(isCommonPassword(p), false, p);
  }
});
