/**
 * Who the MCP server says it is (`serverInfo`, `server/discover`), built here and nowhere else:
 * the member endpoint and the sandbox differ only in what they serve.
 */

/** The product's display name, shared with the MCP manifest (lib/documents/discovery.ts). */
export const SERVER_TITLE = "Routine Tracker";

/** Who the server says it is. */
export interface ServerIdentity {
  name: string;
  title: string;
  version: string;
  description: string;
  websiteUrl: string;
  instructions: string;
}

/** The identity of one endpoint under a configuration. */
export function serverIdentity(
  { baseUrl, version }: { baseUrl: string; version: string },
  endpoint: "mcp" | "sandbox",
): ServerIdentity {
  return endpoint === "sandbox"
    ? {
      name: "routine-tracker-sandbox",
      title: `${SERVER_TITLE} sandbox (synthetic data)`,
      version,
      description: "The Routine Tracker MCP server on a synthetic member. No credential needed.",
      websiteUrl: `${baseUrl}/docs/sandbox`,
      instructions:
        'Every value here is synthetic (member "Sam Rivera (synthetic)", frozen clock 2026-03-18). ' +
        "Start with list_columns, then get_overview. All 18 tools are read-only.",
    }
    : {
      name: "routine-tracker",
      title: SERVER_TITLE,
      version,
      description: "Read-only MCP access to a member's daily-routine health record.",
      websiteUrl: `${baseUrl}/docs/mcp`,
      instructions:
        "Read-only tools over the member's own record. Start with list_columns to learn the metric " +
        "keys, then get_overview. Dates are member-local YYYY-MM-DD; ranges are inclusive.",
    };
}
