/**
 * RECORD_CACHE_MB and RESULT_CACHE_MB (issue #22): a number of MiB from 0 to 65,536, read once at
 * start-up; anything else stops a real `main.ts` process with one line naming the variable.
 */

import assert from "node:assert/strict";
import { runMainToExit } from "./_run_main.ts";
import { checkHeapRoom, ConfigError, loadConfig } from "../../lib/foundation/config.ts";

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
      const { code, output } = await runMainToExit({ [name]: value });
      assert.equal(code, 78, output);
      assert.match(output, new RegExp(`${name} must be a number of MiB from 0 to 65536`));
      assert.equal(output.trim().split("\n").length, 1, `one line: ${output}`);
      assert.doesNotMatch(output, /\bat .*\.ts:\d+|Uncaught|listening/);
    });
  }
});

/** The `--v8-flags=…` of every way the service is shipped to start: one value, or none. */
function shippedV8Flags(): string[] {
  const root = new URL("../../", import.meta.url).pathname;
  const tasks = JSON.parse(Deno.readTextFileSync(`${root}deno.json`)).tasks;
  const dockerfile = Deno.readTextFileSync(`${root}Dockerfile`);
  const unit = Deno.readTextFileSync(`${root}deploy/systemd/routine-tracker.service`);
  const commands = [
    tasks.start,
    tasks["serve:parallel"],
    JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]).join(" "),
    /^ExecStart=(.*)$/m.exec(unit)![1],
  ];
  return commands.map((c: string) => /(--v8-flags=\S+)/.exec(c)?.[1] ?? "none");
}

/** V8's heap limit in bytes of a process started with `flags`. */
async function heapLimitWith(flags: string): Promise<number> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      flags,
      'import v8 from "node:v8"; console.log(v8.getHeapStatistics().heap_size_limit)',
    ],
    env: { DENO_NO_UPDATE_CHECK: "1" },
  }).output();
  return Number(new TextDecoder().decode(out.stdout));
}

Deno.test("start-up: every shipped start command caps V8's heap alike, with room for the default caches", async () => {
  const flags = shippedV8Flags();
  assert.equal(new Set(flags).size, 1, `the start commands differ: ${flags.join(" | ")}`);
  assert.match(flags[0], /--max-old-space-size=\d+/, "uncapped, V8 grows to ~4× the live heap");
  const limit = await heapLimitWith(flags[0]);
  assert.doesNotThrow(() => checkHeapRoom(64 * MIB, 16 * MIB, limit));
  assert.throws(() => checkHeapRoom(256 * MIB, 16 * MIB, limit), ConfigError);
});

Deno.test("start-up: caches larger than V8's heap may grow stop the service, naming the flag to raise", async () => {
  const { code, output } = await runMainToExit({ RECORD_CACHE_MB: "256" }, [shippedV8Flags()[0]]);
  assert.equal(code, 78, output);
  assert.match(
    output,
    /RECORD_CACHE_MB and RESULT_CACHE_MB \(272 MiB together\) need a V8 heap of 368 MiB and this process's is \d+ MiB: lower them, or raise --v8-flags=--max-old-space-size/,
  );
  assert.equal(output.trim().split("\n").length, 1, `one line: ${output}`);
  assert.doesNotMatch(output, /\bat .*\.ts:\d+|Uncaught|listening/);
});
