/**
 * The data-API docs page's examples are executed, as published, against a running server: every
 * bash block in order as one session (they share `$BASE`, `$SESSION`, `$TOKEN`), with
 * `{base_url}` substituted. Every `/api/proxy` action must have an example.
 */

import assert from "node:assert/strict";
import { manualClock } from "../../lib/foundation/clock.ts";
import { PROXY_ACTIONS } from "../../lib/actions/proxy_actions.ts";
import { startServer } from "../_helpers.ts";

const PAGE = new URL("../../content/docs/data-api.md", import.meta.url);

function bashBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

Deno.test("docs scripts: the data-API page's examples run, one per action", async (t) => {
  // The examples use the machine's date as the member's today: the server's clock is real time.
  await using server = await startServer({
    clock: manualClock(Date.now()),
    config: { rateLimitMultiplier: 10 },
  });
  const blocks = bashBlocks(await Deno.readTextFile(PAGE));

  await t.step("every proxy action has an example", () => {
    const text = blocks.join("\n").replaceAll('\\"', '"');
    for (const action of ["healthCheck", ...Object.keys(PROXY_ACTIONS)]) {
      assert.match(text, new RegExp(`"action":"${action}"`), action);
    }
  });

  await t.step("the blocks run in order and each answers", async () => {
    const file = await Deno.makeTempFile({ suffix: ".sh" });
    try {
      await Deno.writeTextFile(file, blocks.join("\n").replaceAll("{base_url}", server.url));
      const out = await new Deno.Command("bash", { args: [file], stdout: "piped", stderr: "piped" })
        .output();
      const stdout = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, `bash failed: ${new TextDecoder().decode(out.stderr)}\n${stdout}`);
      const lines = stdout.trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(lines[0].status, "healthy");
      assert.ok(lines.some((l) => l.column?.key === "steps"), "createColumn");
      assert.ok(lines.some((l) => l.format === "routine-tracker" && l.committed === false));
      assert.ok(lines.some((l) => l.format === "routine-tracker" && l.imported === 1));
      assert.ok(lines.some((l) => l.format === "daylio" && l.createdColumns?.includes("reading")));
      assert.ok(lines.some((l) => l.name === "get_streak" && l.isError !== true), "callTool");
      assert.ok(lines.some((l) => l.code === "not_found"), "revokeGrant with nothing to revoke");
      assert.ok(lines.some((l) => Array.isArray(l.tokens) && l.tokens.length === 1), "tokens list");
      assert.equal(lines.at(-2).passwordChanged, true);
      assert.equal(lines.at(-1).deleted, true);
    } finally {
      await Deno.remove(file);
    }
  });
});
