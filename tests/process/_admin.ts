/** `deno task admin` run as a real process, for the tests of issues #14 and #19. */

const ROOT = new URL("../../", import.meta.url).pathname;
const deno = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));

/** The `admin` task's command line after `deno` (its flags matter: #19 measures its memory). */
export const ADMIN_ARGS: string[] = (deno.tasks.admin as string).split(" ").slice(1);

/** Starts `deno task admin …` (the task's own command) against `kvPath`, output piped. */
export function spawnAdmin(kvPath: string, ...args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [...ADMIN_ARGS, ...args],
    cwd: ROOT,
    env: { KV_PATH: kvPath, DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs `deno task admin …` against `kvPath` to its end. */
export async function admin(kvPath: string, ...args: string[]) {
  const out = await spawnAdmin(kvPath, ...args).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}
