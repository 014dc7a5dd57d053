// @ts-check
import { formatOptions, GLOBAL_OPTIONS, parseArgs } from "./args.js";
import { endpointFor } from "./client.js";
import { call } from "./commands/call.js";
import { discover } from "./commands/discover.js";
import { init } from "./commands/init.js";
import { tools } from "./commands/tools.js";
import { packageVersion, resolveBaseUrl } from "./config.js";
import { CliError, EXIT } from "./errors.js";
import { closestNames } from "./suggest.js";

/** @typedef {import("./args.js").OptionSpec} OptionSpec */

/** @type {OptionSpec} */
const TOKEN_OPTION = {
  name: "token",
  value: "TOKEN",
  description:
    "API token (rt_ro_…): use /api/mcp instead of the sandbox (or ROUTINE_TRACKER_TOKEN)",
};

/**
 * @typedef {object} Command
 * @property {string} usage
 * @property {string} summary
 * @property {OptionSpec[]} options
 * @property {string} [details]
 */

/** @type {Record<string, Command>} */
const COMMANDS = {
  discover: {
    usage: "routine-tracker discover [--out DIR]",
    summary: "save every developer document (OpenAPI, catalogs, manifests, llms.txt, docs pages)",
    options: [{
      name: "out",
      alias: "o",
      value: "DIR",
      description: "folder to write (default ./routine-tracker-docs)",
    }],
  },
  init: {
    usage: "routine-tracker init",
    summary: "MCP handshake with the sandbox: initialize + notifications/initialized",
    options: [],
  },
  tools: {
    usage: "routine-tracker tools [--json] [--token TOKEN]",
    summary: "list the tools as a table",
    options: [
      { name: "json", description: "print the raw tools/list result" },
      TOKEN_OPTION,
    ],
  },
  call: {
    usage: "routine-tracker call <tool_name> [name=value …] [--token TOKEN]",
    summary: "call a tool and print its structuredContent as JSON",
    options: [TOKEN_OPTION],
    details: [
      "Values are typed from the tool's inputSchema: integer and number (days=30), boolean",
      "(include_series=true), array (metrics=sleep_hours,mood), string (metric=mood).",
      "Without a token the sandbox answers (synthetic data). Examples:",
      "  routine-tracker call list_columns",
      "  routine-tracker call get_streak metric=meditation_min",
    ].join("\n"),
  },
};

/** @param {string} version */
function mainHelp(version) {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((n) => n.length));
  return [
    `routine-tracker ${version}: command-line client for Routine Tracker`,
    "",
    "Usage: routine-tracker <command> [options]",
    "",
    "Commands:",
    ...names.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n].summary}`),
    "",
    "Options:",
    formatOptions(GLOBAL_OPTIONS),
    "",
    "Run `routine-tracker <command> --help` for a command's options.",
    "Exit codes: 0 ok, 1 request failed, 2 usage, 3 authentication, 4 rate limited.",
  ].join("\n");
}

/** @param {Command} command */
function commandHelp(command) {
  return [
    `Usage: ${command.usage}`,
    "",
    command.summary.charAt(0).toUpperCase() + command.summary.slice(1) + ".",
    ...(command.details ? ["", command.details] : []),
    "",
    "Options:",
    formatOptions([...command.options, ...GLOBAL_OPTIONS]),
  ].join("\n");
}

/**
 * Runs the CLI and returns the exit code. Results go to stdout, errors to stderr.
 * @param {readonly string[]} argv arguments after the executable
 * @param {Record<string, string | undefined>} env
 * @returns {Promise<number>}
 */
export async function main(argv, env) {
  const out = (/** @type {string} */ line) => process.stdout.write(line + "\n");
  const err = (/** @type {string} */ line) => process.stderr.write(line + "\n");
  try {
    const version = await packageVersion();
    const commandIndex = commandPosition(argv);
    const commandName = commandIndex < 0 ? undefined : argv[commandIndex];
    const command = commandName ? COMMANDS[commandName] : undefined;
    if (commandName && !command) {
      const near = closestNames(commandName, Object.keys(COMMANDS));
      throw new CliError(
        `Unknown command "${commandName}".${
          near.length ? ` Did you mean ${near.join(", ")}?` : ""
        } ` +
          `Commands: ${Object.keys(COMMANDS).join(", ")}.`,
        EXIT.USAGE,
      );
    }
    const rest = commandIndex < 0
      ? argv
      : [...argv.slice(0, commandIndex), ...argv.slice(commandIndex + 1)];
    const { positionals, options } = parseArgs(rest, [
      ...(command?.options ?? []),
      ...GLOBAL_OPTIONS,
    ]);
    const baseFlag = /** @type {string | undefined} */ (options["base-url"]);

    if (options.version) {
      let base = "";
      try {
        base = ` (service ${await resolveBaseUrl(baseFlag, env)})`;
      } catch { /* no base URL configured: print the version alone */ }
      out(`routine-tracker ${version}${base}`);
      return EXIT.OK;
    }
    if (options.help || !command || !commandName) {
      if (!command && !options.help) {
        err(mainHelp(version));
        return EXIT.USAGE;
      }
      out(command ? commandHelp(command) : mainHelp(version));
      return EXIT.OK;
    }

    const baseUrl = await resolveBaseUrl(baseFlag, env);
    const token = /** @type {string | undefined} */ (options.token) ??
      (env.ROUTINE_TRACKER_TOKEN || undefined);
    const endpoint = endpointFor(baseUrl, token);
    switch (commandName) {
      case "discover":
        expectNoPositionals(positionals, command);
        return await discover(
          baseUrl,
          /** @type {string} */ (options.out ?? "routine-tracker-docs"),
          out,
        );
      case "init":
        expectNoPositionals(positionals, command);
        return await init(baseUrl, version, out);
      case "tools":
        expectNoPositionals(positionals, command);
        return await tools(endpoint, baseUrl, options.json === true, out);
      case "call": {
        const [toolName, ...words] = positionals;
        if (!toolName) {
          throw new CliError(
            `Missing the tool name.\nUsage: ${command.usage}`,
            EXIT.USAGE,
          );
        }
        return await call(endpoint, baseUrl, toolName, words, out);
      }
    }
    return EXIT.USAGE;
  } catch (error) {
    if (error instanceof CliError) {
      err(`routine-tracker: ${error.message}`);
      return error.exitCode;
    }
    err(
      `routine-tracker: unexpected error: ${/** @type {Error} */ (error)?.stack ?? error}`,
    );
    return EXIT.FAILURE;
  }
}

/**
 * Where the command word is: the first word that is neither an option nor an option's value.
 * @param {readonly string[]} argv
 * @returns {number}
 */
function commandPosition(argv) {
  const valued = new Set(
    [...GLOBAL_OPTIONS, ...Object.values(COMMANDS).flatMap((c) => c.options)]
      .filter((o) => o.value)
      .flatMap((o) => [`--${o.name}`, ...(o.alias ? [`-${o.alias}`] : [])]),
  );
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--") return i + 1 < argv.length ? i + 1 : -1;
    if (valued.has(argv[i])) i++;
    else if (!argv[i].startsWith("-")) return i;
  }
  return -1;
}

/**
 * @param {string[]} positionals
 * @param {Command} command
 */
function expectNoPositionals(positionals, command) {
  if (positionals.length) {
    throw new CliError(
      `Unexpected argument "${positionals[0]}".\nUsage: ${command.usage}`,
      EXIT.USAGE,
    );
  }
}
