import assert from "node:assert/strict";
import { nameForm, type TestName, testNames } from "./_test_names.ts";

/** Folders that hold no test of ours. */
const SKIP = new Set([".git", "node_modules", "data", "static", "test-output"]);

function* sources(dir: URL, rel: string): Generator<string> {
  for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (e.isDirectory && !SKIP.has(e.name)) {
      yield* sources(new URL(e.name + "/", dir), `${rel}${e.name}/`);
    } else if (e.isFile && /\.tsx?$/.test(e.name)) yield rel + e.name;
  }
}

/** Every test declared in the tree (the rule's own module holds its pattern, not a test). */
function allTestNames(): TestName[] {
  const root = new URL("../", import.meta.url);
  const found: TestName[] = [];
  for (const file of sources(root, "")) {
    if (file === "tests/_test_names.ts") continue;
    found.push(...testNames(file, Deno.readTextFileSync(new URL(file, root))));
  }
  return found;
}

Deno.test("test names: every Deno.test in the tree follows the README's rule", () => {
  const all = allTestNames();
  assert.ok(all.length > 500, `found only ${all.length} tests: the scan missed files`);
  const broken = all.filter((t) => nameForm(t.name) === null);
  assert.deepEqual(broken.map((t) => `${t.file}:${t.line} ${t.name}`), []);
});

Deno.test("nameForm() accepts the README's three examples and refuses names in none of its forms", () => {
  assert.equal(nameForm("runTool() names every tool when the name is unknown"), "unit");
  assert.equal(nameForm("RateLimiter.hit(): remaining never rises within a window"), "unit");
  assert.equal(nameForm("mean(), sd() and median() match a small sample"), "unit");
  assert.equal(nameForm("POST /api/proxy"), "http");
  assert.equal(nameForm("GET, POST, OPTIONS /app/settings"), "http");
  assert.equal(
    nameForm("concurrency: 50 parallel registrations of one name → one account"),
    "suite",
  );
  assert.equal(nameForm("/api/proxy: every action with every bad argument"), "suite");
  for (
    const bad of [
      "a missing day breaks a daily habit but not a spot measurement",
      "get_overview marks the weeks of the water gap",
      "OAuth attack battery",
      "POST",
      "runTool()",
    ]
  ) assert.equal(nameForm(bad), null, bad);
});

Deno.test("testNames() reads string, template and object-form names with their lines", () => {
  // Built from parts so that this file's own scan does not read the fixture as tests.
  const [T, B] = ["Deno.te" + "st", "browser" + "Test"];
  const source = [
    `${T}("fn() does X", () => {});`,
    T + "(`GET ${path}`, () => {});",
    `${T}({`,
    `  name: "topic: proves it",`,
    `  fn() {},`,
    `});`,
    `${B}("Pages: in Chromium", async () => {});`,
    `${T}(`,
    `  'escaped \\' quote',`,
    `  () => {},`,
    `);`,
  ].join("\n");
  assert.deepEqual(testNames("f.ts", source), [
    { file: "f.ts", line: 1, name: "fn() does X" },
    { file: "f.ts", line: 2, name: "GET …" },
    { file: "f.ts", line: 3, name: "topic: proves it" },
    { file: "f.ts", line: 7, name: "Pages: in Chromium" },
    { file: "f.ts", line: 8, name: "escaped ' quote" },
  ]);
});
