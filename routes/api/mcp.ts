/** `POST /api/mcp`: the MCP server over the caller's own record (DESIGN §9). */

import { define } from "../../lib/http/kernel/define.ts";
import { mcpRouteHandlers } from "../../lib/http/mcp/mcp_transport.ts";

export const handler = define.handlers(mcpRouteHandlers("mcp"));
