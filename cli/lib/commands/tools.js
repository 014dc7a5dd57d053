// @ts-check
import { rpc } from "../client.js";
import { CliError, EXIT } from "../errors.js";
import { closestNames } from "../suggest.js";

/**
 * @typedef {{ name: string, title?: string, description?: string, inputSchema: Record<string, any> }} Tool
 * @typedef {import("../client.js").Endpoint} Endpoint
 */

/**
 * Every tool the endpoint lists, following `nextCursor` pages.
 * @param {Endpoint} endpoint
 * @param {string} baseUrl
 * @returns {Promise<Tool[]>}
 */
export async function listTools(endpoint, baseUrl) {
  /** @type {Tool[]} */
  const tools = [];
  let cursor;
  do {
    const result = await rpc(
      endpoint,
      baseUrl,
      "tools/list",
      cursor ? { cursor } : undefined,
    );
    tools.push(...result.tools);
    cursor = result.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * The tool called `name`, or a usage error naming the closest tools.
 * @param {Tool[]} tools
 * @param {string} name
 * @returns {Tool}
 */
export function findTool(tools, name) {
  const tool = tools.find((t) => t.name === name);
  if (tool) return tool;
  const near = closestNames(name, tools.map((t) => t.name));
  throw new CliError(
    `Unknown tool "${name}".` +
      (near.length ? ` Did you mean: ${near.join(", ")}?` : "") +
      " Run `routine-tracker tools` for the list.",
    EXIT.USAGE,
  );
}

/**
 * One line per argument: `name` (required marked `*`) and its type.
 * @param {Tool} tool
 */
function argumentSummary(tool) {
  const props = tool.inputSchema.properties ?? {};
  const required = new Set(tool.inputSchema.required ?? []);
  const names = Object.keys(props);
  if (!names.length) return "—";
  return names.map((n) => `${n}${required.has(n) ? "*" : ""}`).join(" ");
}

/**
 * `routine-tracker tools`: a table of name, title and arguments, or the raw list with `--json`.
 * @param {Endpoint} endpoint
 * @param {string} baseUrl
 * @param {boolean} json
 * @param {(line: string) => void} print
 * @returns {Promise<number>}
 */
export async function tools(endpoint, baseUrl, json, print) {
  const list = await listTools(endpoint, baseUrl);
  if (json) {
    print(JSON.stringify(list, null, 2));
    return EXIT.OK;
  }
  const rows = [
    ["TOOL", "TITLE", "ARGUMENTS (* required)"],
    ...list.map((t) => [t.name, t.title ?? "", argumentSummary(t)]),
  ];
  const widths = [0, 1].map((i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) {
    print(`${r[0].padEnd(widths[0])}  ${r[1].padEnd(widths[1])}  ${r[2]}`);
  }
  print("");
  print(
    `${list.length} tools at ${endpoint.url}${
      endpoint.sandbox ? " (sandbox: synthetic data, no credential)" : ""
    }.`,
  );
  return EXIT.OK;
}
