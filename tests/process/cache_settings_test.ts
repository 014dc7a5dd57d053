/**
 * RECORD_CACHE_MB and RESULT_CACHE_MB (issue #22): a number of MiB from 0 to 65,536, read once at
 * start-up; anything else stops a real `main.ts` process with one line naming the variable.
 */

import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../lib/foundation/config.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const MIB = 1024 * 1024;

Deno.test("loadConfig() reads RECORD_CACHE_MB and RESULT_CACHE_MB in MiB, fractions and 0 included", () => {
  assert.equal(loadConfig({}).recordCacheBytes, 64 * MIB);
  assert.equal(loadConfig({}).resultCacheBytes, 16 * MIB);
  assert.equal(loadConfig({ RECORD_CACHE_MB: "" }).recordCacheBytes, 64 * MIB);
  assert.equal(loadConfig({ RECORD_CACHE_MB: "256" }).recordCacheBytes, 256 * MIB);
  assert.equal(loadConfig({ RESULT_CACHE_MB: "0.5" }).resultCacheBytes, 0.5 * MIB);
  assert.equal(loadConfig({ RECORD_CACHE_MB: "0" }).recordCacheBytes, 0);
  for (const name of ["RECORD_CACHE_MB", "RESULT_CACHE_MB"]) {
    for (const bad of ["-1", "64MB", "abc", "Infinity", "65537"]) {
      assert.throws(
        () => loadConfig({ [name]: bad }),
        (err) =>
          err instanceof ConfigError &&
          err.message === `${name} must be a number of MiB from 0 to 65536, got "${bad}"`,
      );
    }
  }
});

Deno.test("start-up: a RECORD_CACHE_MB or RESULT_CACHE_MB it cannot use stops the service", async (t) => {
  for (const [name, value] of [["RECORD_CACHE_MB", "64MB"], ["RESULT_CACHE_MB", "-16"]]) {
    await t.step(`${name}=${value}`, async () => {
      const dir = await Deno.makeTempDir();
      try {
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", "--unstable-kv", MAIN],
          env: {
            KV_PATH: `${dir}/kv.sqlite3`,
            PORT: "0",
            DENO_NO_UPDATE_CHECK: "1",
            [name]: value,
          },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
          signal: AbortSignal.timeout(60_000),
        }).output();
        const output = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
        assert.equal(out.code, 78, output);
        assert.match(output, new RegExp(`${name} must be a number of MiB from 0 to 65536`));
        assert.equal(output.trim().split("\n").length, 1, `one line: ${output}`);
        assert.doesNotMatch(output, /\bat .*\.ts:\d+|Uncaught|listening/);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
});
