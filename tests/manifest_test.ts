import assert from "node:assert/strict";
import { renderManifest } from "../scripts/gen_manifest.ts";
import { routePathOf } from "../lib/http/kernel/fs_routes.ts";

Deno.test("generated files: manifest.gen.ts is up to date with routes/", async () => {
  const onDisk = await Deno.readTextFile(new URL("../manifest.gen.ts", import.meta.url));
  assert.equal(onDisk, await renderManifest(), "run `deno task manifest`");
});

Deno.test("routePathOf() maps Fresh file names to URL patterns", () => {
  assert.equal(routePathOf("index.tsx"), "/");
  assert.equal(routePathOf("api/mcp.ts"), "/api/mcp");
  assert.equal(routePathOf("docs/[slug].ts"), "/docs/:slug");
  assert.equal(routePathOf("static/[...path].ts"), "/static/:path{.+}");
  assert.equal(routePathOf("(pages)/about.tsx"), "/about");
  assert.equal(
    routePathOf(".well-known/oauth-authorization-server.ts"),
    "/.well-known/oauth-authorization-server",
  );
});
