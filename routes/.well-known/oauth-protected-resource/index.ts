/**
 * `GET /.well-known/oauth-protected-resource`: RFC 9728 metadata at the root, for clients that do
 * not insert the path; it names the MCP endpoint `/api/mcp` (DESIGN §10).
 */

import { define } from "../../../lib/http/kernel/define.ts";
import { protectedResourceMetadata } from "../../../lib/oauth/metadata.ts";

export const handler = define.handlers({
  GET(c) {
    c.header("Cache-Control", "public, max-age=3600");
    return c.json(protectedResourceMetadata(c.var.deps.config.baseUrl, "/api/mcp"));
  },
});
