/**
 * The README's rule for test names ("Test names follow one rule"), as code (issue #23): a name is
 * `fn() does X` (a unit test of a function or tool), `METHOD /path` (an HTTP test of one endpoint,
 * its behaviours as steps) or `topic: what it proves` (a suite that spans endpoints or layers).
 * tests/test_names_test.ts applies it to every `Deno.test` in the tree.
 */

/** Where a test is declared and what it is named (`${…}` in a template name reads as `…`). */
export interface TestName {
  file: string;
  line: number;
  name: string;
}

/** A string literal right after `Deno.test(`, `Deno.test({ name:` or `browserTest(`. */
const DECLARATION =
  /(?:Deno\.test\(\s*(?:\{\s*name:\s*)?|browserTest\(\s*)("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)/g;

/** The names of the tests declared in `source` (a `.ts` file's text). */
export function testNames(file: string, source: string): TestName[] {
  const found: TestName[] = [];
  for (const m of source.matchAll(DECLARATION)) {
    const literal = m[1].slice(1, -1).replace(/\$\{[^}]*\}/g, "…");
    const line = source.slice(0, m.index).split("\n").length;
    found.push({ file, line, name: literal.replace(/\\(.)/g, "$1") });
  }
  return found;
}

/** `fn()`, `Class.method()` or `getThing()`; a few may share a test (`mean(), sd() and median()`). */
const FN = String.raw`[A-Za-z_$][\w$]*(?:\.[A-Za-z_$#][\w$]*)*\(\)`;
const UNIT = new RegExp(`^${FN}(?:(?:,| and) ${FN})*:? \\S`);
const METHOD = "(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)";
/** A path may come from a variable (`${path}` reads as `…`). */
const HTTP = new RegExp(`^${METHOD}(?:, ${METHOD})* (?:/\\S*|…)`);
/** A topic of a few words (a name, a variable, a document), a colon, then the claim. */
const SUITE = /^[\w/][\w./#*+\- ]{0,40}: \S/;

/** Which of the README's three forms `name` takes, or null when it takes none. */
export function nameForm(name: string): "unit" | "http" | "suite" | null {
  if (UNIT.test(name)) return "unit";
  if (HTTP.test(name)) return "http";
  if (SUITE.test(name)) return "suite";
  return null;
}
