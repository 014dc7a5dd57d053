// @ts-check
import { rpc } from "../client.js";
import { CliError, EXIT } from "../errors.js";
import { toolArguments } from "../tool_arguments.js";
import { findTool, listTools } from "./tools.js";

/**
 * `routine-tracker call <tool> name=value…`: types the arguments from the tool's `inputSchema`,
 * calls it, prints `structuredContent` as JSON. A tool failure (`isError`) goes to stderr.
 * @param {import("../client.js").Endpoint} endpoint
 * @param {string} baseUrl
 * @param {string} name
 * @param {readonly string[]} words
 * @param {(line: string) => void} print
 * @returns {Promise<number>}
 */
export async function call(endpoint, baseUrl, name, words, print) {
  const tool = findTool(await listTools(endpoint, baseUrl), name);
  const args = toolArguments(tool, words);
  const result = await rpc(endpoint, baseUrl, "tools/call", {
    name,
    arguments: args,
  });
  if (result.isError) {
    const text = (result.content ?? []).filter((/** @type {any} */ c) => c.type === "text")
      .map((/** @type {any} */ c) => c.text).join("\n");
    let detail = text;
    /** @type {number} */
    let exitCode = EXIT.FAILURE;
    try {
      const error = JSON.parse(text).error;
      if (error) {
        detail = `${error.message ?? error.code}` +
          (error.did_you_mean?.length ? ` Did you mean: ${error.did_you_mean.join(", ")}?` : "") +
          (error.issues?.length
            ? "\n" +
              error.issues.map((/** @type {any} */ i) =>
                `  ${(i.path ?? []).join(".") || "(arguments)"}: ${i.message}`
              ).join("\n")
            : "");
        if (
          error.code === "invalid_request" || error.code === "unknown_metric"
        ) {
          exitCode = EXIT.USAGE;
        }
      }
    } catch { /* not JSON: print the text as it came */ }
    throw new CliError(`${name} failed: ${detail}`, exitCode);
  }
  print(JSON.stringify(result.structuredContent ?? null, null, 2));
  return EXIT.OK;
}
