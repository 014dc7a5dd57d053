/**
 * Operator settings checked at start-up (issue #19): a real `main.ts` process given a setting it
 * cannot use stops at once with one line naming the variable and a non-zero exit, never a stack
 * trace, and never serves.
 */

import assert from "node:assert/strict";
import { runMainToExit } from "./_run_main.ts";

Deno.test("start-up: a METRICS_TOKEN no client could send, or a short one, stops the service", async (t) => {
  const cases: [string, RegExp][] = [
    ["operator@secret-token-1", /METRICS_TOKEN may hold only letters, digits/],
    ["operator secret token 1", /METRICS_TOKEN may hold only letters, digits/],
    ["s3cret!#%-0123456789", /METRICS_TOKEN may hold only letters, digits/],
    ["x", /METRICS_TOKEN must be at least 16 characters, got 1\./],
  ];
  for (const [token, message] of cases) {
    await t.step(JSON.stringify(token), async () => {
      const r = await runMainToExit({ METRICS_TOKEN: token });
      assert.equal(r.code, 78, r.output);
      assert.match(r.output, message);
      assert.equal(r.output.trim().split("\n").length, 1, `one line: ${r.output}`);
      assert.doesNotMatch(r.output, /\bat .*\.ts:\d+|Uncaught|listening/);
      if (token.length > 1) assert.ok(!r.output.includes(token), "the token is not logged");
    });
  }
});
