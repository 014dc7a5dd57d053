// @ts-check
import { endpointFor, PROTOCOL_VERSION, rpc } from "../client.js";
import { EXIT } from "../errors.js";

/**
 * `routine-tracker init`: the MCP handshake against the sandbox — `initialize`, then
 * `notifications/initialized` — printing the negotiated revision and the server's identity.
 * @param {string} baseUrl
 * @param {string} cliVersion
 * @param {(line: string) => void} print
 * @returns {Promise<number>}
 */
export async function init(baseUrl, cliVersion, print) {
  const endpoint = endpointFor(baseUrl, undefined);
  print(
    `→ initialize (asking for revision ${PROTOCOL_VERSION}) at ${endpoint.url}`,
  );
  const result = await rpc(endpoint, baseUrl, "initialize", {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "routine-tracker-cli", version: cliVersion },
  }, { protocolHeader: false });
  const info = result.serverInfo ?? {};
  print(`← negotiated revision ${result.protocolVersion}`);
  print(
    `  server        ${info.name} ${info.version}${info.title ? ` (${info.title})` : ""}`,
  );
  if (info.description) print(`  description   ${info.description}`);
  print(
    `  capabilities  ${Object.keys(result.capabilities ?? {}).join(", ") || "none"}`,
  );
  if (result.instructions) print(`  instructions  ${result.instructions}`);
  const status = await rpc(
    endpoint,
    baseUrl,
    "notifications/initialized",
    undefined,
    {
      notification: true,
    },
  );
  print(`→ notifications/initialized ← HTTP ${status}`);
  print("Handshake complete. Next: routine-tracker tools");
  return EXIT.OK;
}
