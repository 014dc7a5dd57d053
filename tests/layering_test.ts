import assert from "node:assert/strict";
import { layeringViolations } from "./_layering.ts";

async function* walk(dir: URL, rel = ""): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) yield* walk(new URL(e.name + "/", dir), `${rel}${e.name}/`);
    else if (/\.tsx?$/.test(e.name)) yield rel + e.name;
  }
}

Deno.test("layering: lib/ modules outside lib/http/ import no HTTP", async () => {
  const offenders: string[] = [];
  const lib = new URL("../lib/", import.meta.url);
  for await (const file of walk(lib)) {
    if (file.startsWith("http/") || file.endsWith("_test.ts")) continue;
    const text = await Deno.readTextFile(new URL(file, lib));
    if (/from\s+["'](hono|hono\/[^"']*)["']/.test(text) || /from\s+["'][./]*http\//.test(text)) {
      offenders.push(file);
    }
  }
  assert.deepEqual(offenders, []);
});

Deno.test("layering: only lib/foundation/kv_keys.ts builds KV key literals", async () => {
  const offenders: string[] = [];
  const roots = ["../lib/", "../routes/"];
  for (const root of roots) {
    const dir = new URL(root, import.meta.url);
    for await (const file of walk(dir)) {
      if (file === "foundation/kv_keys.ts" || file.endsWith("_test.ts")) continue;
      const text = await Deno.readTextFile(new URL(file, dir));
      // A key literal is an array starting with a string passed to a KV call.
      if (
        /\bkv\.(get|set|delete|list|getMany|watch)\(\s*\[\s*["']/.test(text) ||
        /prefix:\s*\[\s*["']/.test(text)
      ) {
        offenders.push(root + file);
      }
    }
  }
  assert.deepEqual(offenders, []);
});

Deno.test("layeringViolations() finds no import outside the allowed-edges table", async () => {
  assert.deepEqual(await layeringViolations(new URL("../", import.meta.url)), []);
});

Deno.test("layeringViolations() refuses an upward import and a module in the lib/ root", async () => {
  const fixture = new URL("./fixtures/layering/", import.meta.url);
  assert.deepEqual(await layeringViolations(fixture), [
    { from: "lib/record/columns.ts", to: "lib/tools/schemas.ts", rule: "lib/record → lib/tools" },
    { from: "lib/stray.ts", to: "", rule: "lib root" },
  ]);
});
