/** Serving a documentation page as HTML or Markdown (spec "What the service does" 9). */

import { docsFor } from "../../documents/docs_sections.ts";
import { AppError } from "../../foundation/errors.ts";
import type { AppContext } from "./define.ts";
import { acceptQuality, namesMediaType } from "./media_type.ts";
import { renderDocPage } from "./render.tsx";

/** Whether the request asks for Markdown over HTML. */
export function prefersMarkdown(c: AppContext): boolean {
  // Only an explicit text/markdown counts: `*/*` (curl, fetch) keeps the HTML default.
  if (!namesMediaType(c, "text/markdown")) return false;
  const accept = c.req.header("accept")!;
  return acceptQuality(accept, "text/markdown") >= acceptQuality(accept, "text/html");
}

/** Pages in navigation order. */
export function orderedPages(baseUrl: string) {
  return [...docsFor(baseUrl).values()].sort((a, b) =>
    a.order - b.order || a.slug.localeCompare(b.slug)
  );
}

/**
 * Answers with the page `slug`: raw Markdown when `asMarkdown` (the `.md` URL) or when the client
 * prefers `text/markdown`, else HTML. Responses vary on `Accept`.
 */
export function docResponse(c: AppContext, slug: string, asMarkdown = false): Response {
  const { baseUrl } = c.get("deps").config;
  const page = docsFor(baseUrl).get(slug);
  if (!page) throw new AppError("not_found", `No documentation page "${slug}".`);
  const markdown = asMarkdown || prefersMarkdown(c);
  const headers = new Headers({
    "Content-Type": markdown ? "text/markdown; charset=utf-8" : "text/html; charset=utf-8",
    "Cache-Control": "public, max-age=300",
  });
  if (!asMarkdown) headers.set("Vary", "Accept");
  // CSP, X-Frame-Options and Referrer-Policy of the HTML form: lib/http/kernel/security_headers.ts.
  const body = markdown ? page.markdown : renderDocPage(page, orderedPages(baseUrl));
  return new Response(c.req.method === "HEAD" ? null : body, { status: 200, headers });
}
