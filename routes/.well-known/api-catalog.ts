/** `GET`/`HEAD /.well-known/api-catalog`: the RFC 9727 linkset naming every API (DESIGN §11). */

import {
  API_CATALOG_CONTENT_TYPE,
  apiCatalogLinkHeader,
  buildApiCatalog,
} from "../../lib/documents/discovery.ts";
import { define } from "../../lib/http/kernel/define.ts";
import { serveDocument } from "../../lib/http/kernel/discovery_response.ts";

export const handler = define.handlers({
  // HEAD reaches this handler too (Hono strips the body); RFC 9727 §2 wants the Link on it.
  GET: (c) =>
    serveDocument(c, "api-catalog", (base) => ({
      body: JSON.stringify(buildApiCatalog(base), null, 2),
      contentType: API_CATALOG_CONTENT_TYPE,
      headers: { Link: apiCatalogLinkHeader(base) },
    })),
});
