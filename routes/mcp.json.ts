/** `GET /mcp.json`: short alias of `/.well-known/mcp.json`. */

import { define } from "../lib/http/kernel/define.ts";
import { mcpManifestResponse } from "../lib/http/kernel/discovery_response.ts";

export const handler = define.handlers({ GET: mcpManifestResponse });
