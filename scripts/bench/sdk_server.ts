/**
 * The official MCP TypeScript SDK serving the same tool statelessly on Deno, as its documentation
 * shows: a new `McpServer` and web-standard transport per request (no session), JSON responses,
 * one ajv validator shared by all of them (compiling one per request is the SDK's avoidable
 * cost, reference/perf-anchors.md). The tool answers from the same `runTool` on the same
 * synthetic member, so only the server around it differs.
 */

import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import { syntheticMember } from "../../lib/sandbox/synthetic_member.ts";
import { runTool } from "../../lib/tools/run_tool.ts";

const validator = new AjvJsonSchemaValidator();

function server(): McpServer {
  const mcp = new McpServer(
    { name: "sdk-bench", version: "1.0.0" },
    { jsonSchemaValidator: validator },
  );
  mcp.registerTool("get_streak", {
    description: "Current and longest streak of a metric.",
    inputSchema: { metric: z.string() },
  }, ({ metric }: { metric: string }) => {
    const outcome = runTool(syntheticMember(), "get_streak", { metric });
    if (outcome.kind !== "result") throw new Error(`bench tool call failed: ${outcome.kind}`);
    const structured = outcome.structured;
    return {
      content: [{ type: "text", text: JSON.stringify(structured) }],
      structuredContent: structured,
    };
  });
  return mcp;
}

Deno.serve(
  { port: Number(Deno.env.get("PORT") ?? 18004), hostname: "127.0.0.1", onListen: () => {} },
  async (req) => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const mcp = server();
    await mcp.connect(transport);
    try {
      return await transport.handleRequest(req);
    } finally {
      await mcp.close();
    }
  },
);
