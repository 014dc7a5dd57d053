/** `deno task admin` run as a real process, for the tests of issue #14. */

const SCRIPT = new URL("../../scripts/admin.ts", import.meta.url).pathname;

/** Runs `deno task admin …` (the task's own command) against `kvPath`. */
export async function admin(kvPath: string, ...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", SCRIPT, ...args],
    env: { KV_PATH: kvPath, DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}
