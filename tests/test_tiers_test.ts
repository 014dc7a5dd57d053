/** The test tiers of tests/_tiers.ts against the tree and deno.json (issue #23). */

import assert from "node:assert/strict";
import { allTestFiles, FULL_RUN_ONLY, listed, ROOT, SIMULATIONS, tierFiles } from "./_tiers.ts";

/** What a test file calls when it starts a real port, a child process or a browser. */
const OUT_OF_PROCESS_CALLS =
  /\bstartServer\(|\bDeno\.serve\(|\bDeno\.Command\b|\bstartKvConnectServer\(|\/_processes\.ts"|\bbrowserTest\(|playwright-core/;

function source(file: string): string {
  return Deno.readTextFileSync(new URL(file, ROOT));
}

Deno.test("test tiers: no file of test:fast starts a real port, a child process or a browser", () => {
  const fast = tierFiles("fast");
  assert.ok(fast.length > 100, `test:fast has only ${fast.length} files: the walk missed some`);
  const scanned = fast.filter((f) => f !== "tests/test_tiers_test.ts"); // this file names the calls
  const offenders = scanned.filter((f) => OUT_OF_PROCESS_CALLS.test(source(f)));
  assert.deepEqual(offenders, [], "add these to OUT_OF_PROCESS in tests/_tiers.ts");
});

Deno.test("test tiers: every entry of the table names a test file or folder of the tree", () => {
  const all = allTestFiles();
  const stale = [...SIMULATIONS, ...FULL_RUN_ONLY].filter((entry) =>
    !all.some((f) => listed([entry], f))
  );
  assert.deepEqual(stale, []);
  const both = SIMULATIONS.filter((f) => listed(FULL_RUN_ONLY, f));
  assert.deepEqual(both, [], "a file is in one tier");
});

Deno.test("test tiers: test:unit is the lib/ part of test:fast, and no tier runs a file twice", () => {
  const unit = tierFiles("unit");
  const fast = tierFiles("fast");
  assert.ok(unit.length > 50 && unit.every((f) => f.startsWith("lib/")));
  assert.deepEqual(fast.filter((f) => f.startsWith("lib/")), unit);
  assert.equal(new Set(fast).size, fast.length);
  const everyFile = allTestFiles();
  const placed = [...fast, ...tierFiles("sim")].concat(
    everyFile.filter((f) => listed(FULL_RUN_ONLY, f)),
  );
  assert.deepEqual(placed.sort(), everyFile, "every test file is in exactly one tier");
});

/** A deno.json task's words (the tasks have no quoting). */
function taskWords(name: string): string[] {
  const config = JSON.parse(source("deno.json")) as { tasks: Record<string, string> };
  const task = config.tasks[name];
  assert.ok(task, `deno.json has a ${name} task`);
  return task.split(/\s+/);
}

Deno.test("test tiers: deno.json's test:unit, test:fast and test:sim run the tiers of the table", () => {
  for (const name of ["test:unit", "test:fast", "test:sim"]) {
    const words = taskWords(name);
    // `--ignore` with several paths leaves files of the later paths in (tests/_tiers.ts).
    assert.ok(!words.some((w) => w.startsWith("--ignore")), `${name} uses --ignore`);
  }
  const paths = (name: string) => taskWords(name).filter((w) => !w.startsWith("-") && w !== "deno");
  assert.deepEqual(paths("test:unit"), ["test", "tests/_tier_lib.ts"]);
  assert.deepEqual(paths("test:fast"), ["test", "tests/_tier_lib.ts", "tests/_tier_http.ts"]);
  assert.deepEqual(paths("test:sim"), ["test", ...tierFiles("sim")]);
});
