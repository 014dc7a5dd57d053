import assert from "node:assert/strict";
import { buildCliTarball, cliPackageFiles } from "./cli_package.ts";
import { SERVICE_VERSION } from "../foundation/config.ts";

Deno.test("cliPackageFiles() bakes in the base URL and the service version", async () => {
  const files = await cliPackageFiles("https://routine.example.com");
  const byPath = new Map(files.map((f) => [f.path, f]));
  const decode = (path: string) => JSON.parse(new TextDecoder().decode(byPath.get(path)!.body));
  assert.deepEqual(decode("config.json"), {
    baseUrl: "https://routine.example.com",
    serviceVersion: SERVICE_VERSION,
  });
  const manifest = decode("package.json");
  assert.equal(manifest.name, "routine-tracker-cli");
  assert.equal(manifest.version, SERVICE_VERSION);
  assert.deepEqual(manifest.bin, { "routine-tracker": "bin/routine-tracker.js" });
  assert.equal(manifest.dependencies, undefined, "no runtime dependencies");
  assert.equal(byPath.get("bin/routine-tracker.js")!.executable, true);
  assert.ok(files.every((f) => !f.path.includes("node_modules")));
});

Deno.test("buildCliTarball() is a reproducible gzip", async () => {
  const a = await buildCliTarball("https://routine.example.com");
  const b = await buildCliTarball("https://routine.example.com");
  assert.deepEqual([a[0], a[1]], [0x1f, 0x8b]);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, await buildCliTarball("https://other.example.com"));
});
