/** `GET /llms.txt`: the documentation index for language models (llmstxt.org). */

import { buildLlmsTxt } from "../lib/documents/discovery.ts";
import { define } from "../lib/http/kernel/define.ts";
import { serveDocument } from "../lib/http/kernel/discovery_response.ts";
import { orderedPages } from "../lib/http/kernel/docs_response.ts";

export const handler = define.handlers({
  GET: (c) =>
    serveDocument(c, "llms.txt", (base) => ({
      body: buildLlmsTxt(base, orderedPages(base)),
      contentType: "text/plain; charset=utf-8",
    })),
});
