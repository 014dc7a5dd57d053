/**
 * `deno task bench:big` (scripts/bench_big.ts, issue #22) refuses a bad option before it builds
 * anything: one line saying what is wrong and the usage, exit code 2, no stack trace.
 */

import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;
const deno = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
const BENCH_ARGS: string[] = (deno.tasks["bench:big"] as string).split(" ").slice(1);

async function runBench(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...BENCH_ARGS, ...args],
    cwd: ROOT,
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("scripts: deno task bench:big refuses a bad option with its usage, not a stack trace", async () => {
  for (const args of [["--help"], ["--members", "ten"], ["--quick", "--seconds", "0"]]) {
    const { code, stderr } = await runBench(...args);
    assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
    assert.match(stderr, /^usage: deno task bench:big /m, stderr);
    assert.doesNotMatch(stderr, /\bat \S+:\d+:\d+|Uncaught/, stderr);
  }
});

Deno.test("scripts: bench:big's active members have the instance's mix of record sizes, spread over all of it", async () => {
  const { activeSet } = await import("../../scripts/bench_big.ts");
  const { isThreeYear } = await import("../../scripts/bench_big_build.ts");
  const instance = [...Array(10_000).keys()];
  for (const count of [2_000, 1_000, 3_000, 20]) {
    const active = activeSet(instance, count);
    assert.equal(new Set(active).size, count, `${count}: members drawn twice`);
    assert.ok(active.every((i) => i >= 0 && i < instance.length));
    const share = active.filter(isThreeYear).length / count;
    assert.ok(
      Math.abs(share - 0.2) <= 0.01,
      `${count} active: ${(100 * share).toFixed(1)} % have three years, the instance 20 %`,
    );
    assert.ok(active.at(-1)! >= instance.length - instance.length / count - 5, "not spread");
  }
});
