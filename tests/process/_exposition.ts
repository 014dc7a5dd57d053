/**
 * A strict reader of the Prometheus text exposition format 0.0.4 (prometheus.io/docs/instrumenting/
 * exposition_formats): every line must be a HELP, a TYPE or a sample; a family's TYPE comes before
 * its samples, which are contiguous; histogram buckets are cumulative and end with `+Inf` equal to
 * `_count`. Throws on the first violation, naming the line.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  type: string;
  help: string;
  samples: Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
const VALUE = "[-+]?(?:[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?|Inf)|NaN";
const HELP_LINE = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE_LINE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_LINE = new RegExp(
  `^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*)?\\})? (${VALUE})(?: -?[0-9]+)?$`,
);
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/g;

function familyOf(name: string, families: Map<string, Family>): string {
  if (families.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, "");
  return base;
}

/** Parses an exposition into families by name; throws on any malformed line. */
export function parseExposition(text: string): Map<string, Family> {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  let current = "";
  for (const line of text.slice(0, -1).split("\n")) {
    let m: RegExpExecArray | null;
    if ((m = HELP_LINE.exec(line))) {
      families.set(m[1], { type: "untyped", help: m[2], samples: [] });
      continue;
    }
    if ((m = TYPE_LINE.exec(line))) {
      const family = families.get(m[1]);
      if (!family || family.samples.length) throw new Error(`TYPE after samples: ${line}`);
      family.type = m[2];
      if (current) closed.add(current);
      current = m[1];
      continue;
    }
    if (!(m = SAMPLE_LINE.exec(line))) throw new Error(`not an exposition line: ${line}`);
    const familyName = familyOf(m[1], families);
    const family = families.get(familyName);
    if (!family || familyName !== current || closed.has(familyName)) {
      throw new Error(`sample outside its family: ${line}`);
    }
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(LABEL_PAIR)) labels[k] = v;
    const value = m[3] === "NaN" ? NaN : Number(m[3].replace(/Inf$/, "Infinity"));
    family.samples.push({ name: m[1], labels, value });
  }
  for (const [name, family] of families) {
    if (family.type === "histogram") checkHistogram(name, family);
  }
  return families;
}

/** Buckets cumulative per series, `+Inf` present and equal to `_count`. */
function checkHistogram(name: string, family: Family): void {
  const series = new Map<string, { last: number; inf?: number; count?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(rest);
    const state = series.get(key) ?? { last: 0 };
    series.set(key, state);
    if (s.name === `${name}_bucket`) {
      if (le === undefined || s.value < state.last) throw new Error(`${name}: bad bucket ${key}`);
      state.last = s.value;
      if (le === "+Inf") state.inf = s.value;
    } else if (s.name === `${name}_count`) state.count = s.value;
  }
  for (const [key, state] of series) {
    if (state.inf === undefined || state.inf !== state.count) {
      throw new Error(`${name}: +Inf bucket and _count differ for ${key}`);
    }
  }
}
