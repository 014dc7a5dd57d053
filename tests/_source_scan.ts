/**
 * The line scan behind the boundary tests (tests/secrets_boundary_test.ts,
 * tests/credentials_boundary_test.ts): every source file of the app, and the lines of them that
 * break a rule only one home module may break.
 */

const ROOT = new URL("../", import.meta.url);
const SOURCE_DIRS = ["lib", "routes", "components", "islands"];

/** One line that does what only the home module may do. */
export interface Violation {
  file: string;
  line: number;
  rule: string;
}

/** A rule: what a line must not match outside the home module. */
export interface LineRule {
  rule: string;
  re: RegExp;
}

/** The lines of `files` (path → text) outside `home` that match a rule. */
export function lineViolations(
  files: Iterable<[string, string]>,
  home: string,
  rules: readonly LineRule[],
): Violation[] {
  const found: Violation[] = [];
  for (const [file, text] of files) {
    if (file === home) continue;
    text.split("\n").forEach((lineText, i) => {
      for (const { rule, re } of rules) {
        if (re.test(lineText)) found.push({ file, line: i + 1, rule });
      }
    });
  }
  return found;
}

function isTestSupport(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return /_test\.tsx?$/.test(name) || name.startsWith("_test");
}

function* sourceFilesUnder(dir: string): Generator<[string, string]> {
  for (const e of [...Deno.readDirSync(new URL(dir + "/", ROOT))]) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sourceFilesUnder(path);
    else if (/\.tsx?$/.test(e.name) && !isTestSupport(path)) {
      yield [path, Deno.readTextFileSync(new URL(path, ROOT))];
    }
  }
}

/** Every app source file (lib, routes, components, islands; no tests), with `main.ts` if asked. */
export function appSourceFiles(options: { main?: boolean } = {}): [string, string][] {
  const files = SOURCE_DIRS.flatMap((d) => [...sourceFilesUnder(d)]);
  if (options.main) files.push(["main.ts", Deno.readTextFileSync(new URL("main.ts", ROOT))]);
  return files;
}
