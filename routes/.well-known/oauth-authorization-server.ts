/** `GET /.well-known/oauth-authorization-server`: RFC 8414 metadata (DESIGN §10). */

import { define } from "../../lib/http/kernel/define.ts";
import { authorizationServerMetadata } from "../../lib/oauth/metadata.ts";

export const handler = define.handlers({
  GET(c) {
    const { config } = c.var.deps;
    c.header("Cache-Control", "public, max-age=3600");
    // CIMD is advertised because the fetcher (with its SSRF guard) is wired in (spec-anchors C3).
    return c.json(authorizationServerMetadata(config.baseUrl, { clientIdMetadataDocuments: true }));
  },
});
