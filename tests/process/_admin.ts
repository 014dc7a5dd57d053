/** `deno task admin` run as a real process, for the tests of issues #14 and #19. */

const ROOT = new URL("../../", import.meta.url).pathname;
const deno = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));

/** The `admin` task's command line after `deno` (its flags matter: #19 measures its memory). */
export const ADMIN_ARGS: string[] = (deno.tasks.admin as string).split(" ").slice(1);

/**
 * Starts `deno task admin …` (the task's own command) against `kv` — a KV file's path, or the
 * environment that reaches a KV (e.g. `Processes.kvEnv`, `KV_URL` and its token) — output piped.
 */
export function spawnAdmin(
  kv: string | Record<string, string>,
  ...args: string[]
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [...ADMIN_ARGS, ...args],
    cwd: ROOT,
    env: { ...(typeof kv === "string" ? { KV_PATH: kv } : kv), DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs `deno task admin …` against `kv` (as `spawnAdmin`) to its end. */
export async function admin(kv: string | Record<string, string>, ...args: string[]) {
  const out = await spawnAdmin(kv, ...args).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}
