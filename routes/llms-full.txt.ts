/** `GET /llms-full.txt`: every documentation page inlined in one file. */

import { buildLlmsFullTxt } from "../lib/documents/discovery.ts";
import { define } from "../lib/http/kernel/define.ts";
import { serveDocument } from "../lib/http/kernel/discovery_response.ts";
import { orderedPages } from "../lib/http/kernel/docs_response.ts";

export const handler = define.handlers({
  GET: (c) =>
    serveDocument(c, "llms-full.txt", (base) => ({
      body: buildLlmsFullTxt(base, orderedPages(base)),
      contentType: "text/plain; charset=utf-8",
    })),
});
