/**
 * The real `main.ts`, started with `env` (and `flags` for `deno run`) on a fresh KV file and run
 * until it exits, for start-up checks that must stop the service (exit 78 and one line).
 */

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Its exit code and its output, stdout then stderr. */
export async function runMainToExit(
  env: Record<string, string>,
  flags: string[] = [],
): Promise<{ code: number; output: string }> {
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--unstable-kv", ...flags, MAIN],
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
