/**
 * Measures functions in deno-fmt'ed TypeScript by indentation: a function starts on a line that
 * declares one (`function f(`, a method `name(…) {`, or `… => {` at the end of a line) and ends on
 * the next line at the same indentation that closes it. Crude, but the formatter makes it exact
 * enough for the rule it serves (house style: a function fits on a screen, < 80 lines).
 * A function whose body is one `return` of an object or array literal is data, not logic: exempt.
 */

/** One function longer than the limit. */
export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

const START_RES = [
  /^(\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s+(\w+)/,
  /^(\s*)(?:export\s+)?(?:const|let)\s+(\w+)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:\([^)]*\)|\w+)?\s*(?::[^=]+)?=>\s*\{$/,
  /^(\s*)(?:export\s+)?(?:const|let)\s+(\w+)\s*=\s*(?:async\s+)?\($/,
  /^(\s*)(?:(?:public|private|static|async|readonly)\s+)*(?:get\s+|set\s+)?(#?\w+)\s*(?:<[^>]*>)?\([^;]*\)\s*(?::\s*[^{;]+)?\{$/,
  /^(\s*)(?:(?:public|private|static|async)\s+)*(#?\w+)\s*(?:<[^>]*>)?\($/,
  /^(\s*)(\w+): (?:async\s+)?\([^)]*\)(?::[^=]+)? => \{$/,
];

const KEYWORDS = new Set(["if", "for", "while", "switch", "catch", "return", "else", "do", "try"]);

/** Functions in `text` longer than `limit` lines. */
export function longFunctions(file: string, text: string, limit: number): LongFunction[] {
  const lines = text.split("\n");
  const found: LongFunction[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = matchStart(lines[i]);
    if (!start || KEYWORDS.has(start.name)) continue;
    const end = closingLine(lines, i, start.indent);
    if (end === null) continue;
    const length = end - i + 1;
    if (length > limit && !isDataLiteral(lines, i, end)) {
      found.push({ file, line: i + 1, name: start.name, lines: length });
    }
  }
  return found;
}

function matchStart(line: string): { indent: number; name: string } | null {
  for (const re of START_RES) {
    const m = re.exec(line);
    if (m) return { indent: m[1].length, name: m[2] };
  }
  return null;
}

/** The line that closes a declaration opened at `from` with indentation `indent`. */
function closingLine(lines: string[], from: number, indent: number): number | null {
  for (let j = from + 1; j < lines.length; j++) {
    const line = lines[j];
    if (line.trim() === "") continue;
    const lead = line.length - line.trimStart().length;
    if (lead < indent) return null;
    if (lead > indent) continue;
    const text = line.trim();
    if (/^\)/.test(text) && /\{$/.test(text)) continue; // the end of a multi-line signature
    return /^[})]/.test(text) ? j : null;
  }
  return null;
}

function isDataLiteral(lines: string[], start: number, end: number): boolean {
  let bodyStart = start + 1;
  while (bodyStart < end && !/\{$/.test(lines[bodyStart - 1].trimEnd())) bodyStart++;
  const body = lines.slice(bodyStart, end).filter((l) => l.trim() !== "" && !/^\s*\/\//.test(l));
  return body.length > 0 && /^\s*return [{[]$/.test(body[0]) &&
    /^\s*[}\]];$/.test(body[body.length - 1]);
}
