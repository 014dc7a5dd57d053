// @ts-check
import { CliError, EXIT } from "./errors.js";

/**
 * @typedef {{ name: string, alias?: string, value?: string, description: string }} OptionSpec
 * An option a command accepts; `value` names its argument, absent for a flag.
 */

/** Options every command accepts. @type {OptionSpec[]} */
export const GLOBAL_OPTIONS = [
  {
    name: "base-url",
    value: "URL",
    description: "service to talk to (default: the instance that served this package)",
  },
  { name: "help", alias: "h", description: "show help" },
  { name: "version", alias: "V", description: "show the version" },
];

/**
 * @typedef {object} ParsedArgs
 * @property {string[]} positionals
 * @property {Record<string, string | true>} options
 */

/**
 * Splits argv into positionals and options (`--name value`, `--name=value`, `-x`, `--` ends
 * options). Unknown options are refused with the accepted ones.
 * @param {readonly string[]} argv
 * @param {readonly OptionSpec[]} specs
 * @returns {ParsedArgs}
 */
export function parseArgs(argv, specs) {
  /** @type {string[]} */
  const positionals = [];
  /** @type {Record<string, string | true>} */
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith("--");
    const [key, inline] = long ? splitOnce(arg.slice(2), "=") : [arg.slice(1), undefined];
    const spec = specs.find((s) => (long ? s.name === key : s.alias === key));
    if (!spec) {
      const accepted = specs.map((s) => `--${s.name}`).join(", ");
      throw new CliError(
        `Unknown option ${arg}. This command accepts: ${accepted}.`,
        EXIT.USAGE,
      );
    }
    if (spec.value) {
      const value = inline ?? argv[++i];
      if (value === undefined) {
        throw new CliError(
          `Option --${spec.name} needs a value (${spec.value}).`,
          EXIT.USAGE,
        );
      }
      options[spec.name] = value;
    } else {
      if (inline !== undefined) {
        throw new CliError(`Option --${spec.name} takes no value.`, EXIT.USAGE);
      }
      options[spec.name] = true;
    }
  }
  return { positionals, options };
}

/**
 * @param {string} text
 * @param {string} separator
 * @returns {[string, string | undefined]}
 */
function splitOnce(text, separator) {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/**
 * Renders an options table for help text.
 * @param {readonly OptionSpec[]} specs
 * @returns {string}
 */
export function formatOptions(specs) {
  const rows = specs.map((s) => [
    `${s.alias ? `-${s.alias}, ` : "    "}--${s.name}${s.value ? ` ${s.value}` : ""}`,
    s.description,
  ]);
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join(
    "\n",
  );
}
