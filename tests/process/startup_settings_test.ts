/**
 * Operator settings checked at start-up (issue #19): a real `main.ts` process given a setting it
 * cannot use stops at once with one line naming the variable and a non-zero exit, never a stack
 * trace, and never serves.
 */

import assert from "node:assert/strict";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Runs `deno run main.ts` with `env` on a fresh KV file until it exits (it must, here). */
async function startWith(env: Record<string, string>) {
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--unstable-kv", MAIN],
      env: { KV_PATH: `${dir}/kv.sqlite3`, PORT: "0", DENO_NO_UPDATE_CHECK: "1", ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    return { code: out.code, output: text(out.stdout) + text(out.stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("start-up: a METRICS_TOKEN no client could send, or a short one, stops the service", async (t) => {
  const cases: [string, RegExp][] = [
    ["operator@secret-token-1", /METRICS_TOKEN may hold only letters, digits/],
    ["operator secret token 1", /METRICS_TOKEN may hold only letters, digits/],
    ["s3cret!#%-0123456789", /METRICS_TOKEN may hold only letters, digits/],
    ["x", /METRICS_TOKEN must be at least 16 characters, got 1\./],
  ];
  for (const [token, message] of cases) {
    await t.step(JSON.stringify(token), async () => {
      const r = await startWith({ METRICS_TOKEN: token });
      assert.equal(r.code, 78, r.output);
      assert.match(r.output, message);
      assert.equal(r.output.trim().split("\n").length, 1, `one line: ${r.output}`);
      assert.doesNotMatch(r.output, /\bat .*\.ts:\d+|Uncaught|listening/);
      if (token.length > 1) assert.ok(!r.output.includes(token), "the token is not logged");
    });
  }
});
