/** `GET /.well-known/mcp.json`: the MCP manifest (DESIGN §11). */

import { define } from "../../lib/http/kernel/define.ts";
import { mcpManifestResponse } from "../../lib/http/kernel/discovery_response.ts";

export const handler = define.handlers({ GET: mcpManifestResponse });
