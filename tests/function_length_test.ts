import assert from "node:assert/strict";
import { longFunctions } from "./_function_length.ts";

/** House style: a function fits on a screen. */
const LIMIT = 80;

function* sources(dir: URL, rel: string): Generator<string> {
  for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (e.isDirectory) yield* sources(new URL(e.name + "/", dir), `${rel}${e.name}/`);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith("_test.ts")) yield rel + e.name;
  }
}

Deno.test("longFunctions() finds no function over 80 lines in lib/, routes/, components/ or islands/", () => {
  const root = new URL("../", import.meta.url);
  const found = [];
  for (const top of ["lib", "routes", "components", "islands"]) {
    for (const file of sources(new URL(`${top}/`, root), `${top}/`)) {
      found.push(...longFunctions(file, Deno.readTextFileSync(new URL(file, root)), LIMIT));
    }
  }
  assert.deepEqual(found, []);
});

Deno.test("longFunctions() measures a function by its closing line and exempts data literals", () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join("\n");
  const long = `export function tooLong(\n  a: number,\n): number {\n  let x = a;\n${
    body(80)
  }\n  return x;\n}\n`;
  assert.deepEqual(longFunctions("f.ts", long, LIMIT), [
    { file: "f.ts", line: 1, name: "tooLong", lines: 86 },
  ]);
  const literal = `function table() {\n  return {\n${body(90).replaceAll("x +=", "k:")}\n  };\n}\n`;
  assert.deepEqual(longFunctions("f.ts", literal, LIMIT), []);
  const method = `class A {\n  run(): void {\n${body(85).replaceAll("  x", "    x")}\n  }\n}\n`;
  assert.deepEqual(longFunctions("f.ts", method, LIMIT).map((f) => f.name), ["run"]);
});
