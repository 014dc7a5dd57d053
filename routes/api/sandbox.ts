/** `POST /api/sandbox`: the same MCP server on the synthetic member, no credential (DESIGN §9). */

import { define } from "../../lib/http/kernel/define.ts";
import { mcpRouteHandlers } from "../../lib/http/mcp/mcp_transport.ts";

export const handler = define.handlers(mcpRouteHandlers("sandbox"));
