/** The README's "Using the web app" pictures: every linked screenshot is committed and small. */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const MAX_BYTES = 150 * 1024;

Deno.test("README: README links only committed screenshots, each a PNG under 150 kB", () => {
  const readme = Deno.readTextFileSync(new URL("README.md", ROOT));
  const linked = [...new Set(readme.match(/docs\/screenshots\/[\w.-]+/g) ?? [])];
  assert.ok(linked.length >= 2, "the README shows the web app");
  for (const path of linked) {
    const bytes = Deno.readFileSync(new URL(path, ROOT));
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], `${path} is a PNG`);
    assert.ok(bytes.length < MAX_BYTES, `${path}: ${bytes.length} B`);
  }
  for (const entry of Deno.readDirSync(new URL("docs/screenshots/", ROOT))) {
    assert.ok(linked.includes(`docs/screenshots/${entry.name}`), `${entry.name} is shown`);
  }
});
