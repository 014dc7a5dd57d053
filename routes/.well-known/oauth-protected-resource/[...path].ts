/**
 * `GET /.well-known/oauth-protected-resource/api/mcp` (and `/api/v1/mcp`): RFC 9728 §3.1
 * path-inserted metadata whose `resource` is exactly the endpoint URL it was built from (§3.3).
 */

import { z } from "zod";
import { AppError } from "../../../lib/foundation/errors.ts";
import { define } from "../../../lib/http/kernel/define.ts";
import { MCP_RESOURCE_PATHS, protectedResourceMetadata } from "../../../lib/oauth/metadata.ts";

const ResourcePath = z.object({ path: z.string().max(200) });

export const handler = define.handlers({
  GET(c) {
    const { path } = ResourcePath.parse(c.req.param());
    const resourcePath = MCP_RESOURCE_PATHS.find((p) => p === "/" + path);
    if (!resourcePath) {
      throw new AppError("not_found", `/${path} is not a protected resource of this server.`);
    }
    c.header("Cache-Control", "public, max-age=3600");
    return c.json(protectedResourceMetadata(c.var.deps.config.baseUrl, resourcePath));
  },
});
