import assert from "node:assert/strict";
import { loadConfig, PRODUCTION_PASSWORD_ITERATIONS, testConfig } from "../foundation/config.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";

Deno.test("hashPassword() uses PBKDF2-SHA256 with at least 600 000 iterations in production (OWASP)", () => {
  assert.equal(PRODUCTION_PASSWORD_ITERATIONS, 600_000);
  assert.equal(loadConfig({}).passwordIterations, 600_000);
  assert.ok(testConfig().passwordIterations < 600_000, "tests run a cheaper, stored work factor");
});

Deno.test("hashPassword() stores its parameters; verifyPassword() checks with them", async () => {
  const stored = await hashPassword("correct horse battery", 1_000);
  assert.match(stored, /^pbkdf2-sha256\$1000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.equal(await verifyPassword("correct horse battery", stored), true);
  assert.equal(await verifyPassword("correct horse batterY", stored), false);
  assert.notEqual(await hashPassword("correct horse battery", 1_000), stored, "salted");
  assert.equal(await verifyPassword("x", "md5$abc"), false);
});
