/**
 * The scripts on the token-scripts docs page are executed, as published, against a running server:
 * bash for curl, python3, and deno for the JavaScript, with `{base_url}` substituted.
 */

import assert from "node:assert/strict";
import { startServer } from "../_helpers.ts";

const PAGE = new URL("../../content/docs/token-scripts.md", import.meta.url);

function blocks(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of markdown.matchAll(/^```(bash|python|javascript)\n([\s\S]*?)^```$/gm)) {
    out.set(m[1], m[2]);
  }
  return out;
}

const RUNNERS: Record<string, { ext: string; cmd: (file: string) => [string, string[]] }> = {
  bash: { ext: ".sh", cmd: (f) => ["bash", [f]] },
  python: { ext: ".py", cmd: (f) => ["python3", [f]] },
  javascript: { ext: ".mjs", cmd: (f) => [Deno.execPath(), ["run", "--allow-net", f]] },
};

Deno.test("docs scripts: the token-scripts page's scripts register, mint a token and call a tool", async (t) => {
  await using server = await startServer({ config: { rateLimitMultiplier: 10 } });
  const scripts = blocks(await Deno.readTextFile(PAGE));
  assert.deepEqual([...scripts.keys()].sort(), ["bash", "javascript", "python"]);
  for (const [lang, source] of scripts) {
    await t.step(lang, async () => {
      const file = await Deno.makeTempFile({ suffix: RUNNERS[lang].ext });
      try {
        await Deno.writeTextFile(file, source.replaceAll("{base_url}", server.url));
        const [cmd, args] = RUNNERS[lang].cmd(file);
        const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" })
          .output();
        const stdout = new TextDecoder().decode(out.stdout);
        assert.equal(out.code, 0, `${lang} failed: ${new TextDecoder().decode(out.stderr)}`);
        assert.match(stdout, /"columns"/);
        assert.match(stdout, /"timezone"/);
      } finally {
        await Deno.remove(file);
      }
    });
  }
});
