import assert from "node:assert/strict";
import { storageTable, withStorageTable } from "../scripts/gen_architecture.ts";

Deno.test("storageTable() in docs/architecture.md is up to date with lib/foundation/kv_keys.ts", async () => {
  const file = new URL("../docs/architecture.md", import.meta.url);
  const committed = await Deno.readTextFile(file);
  const fresh = withStorageTable(committed, storageTable());
  // Compare ignoring table padding (deno fmt aligns columns): run `deno task architecture`.
  const squash = (s: string) => s.replace(/ *\| */g, "|").replace(/-{3,}/g, "---");
  assert.equal(squash(committed), squash(fresh), "run `deno task architecture`");
});
