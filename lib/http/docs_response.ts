/** Serving a documentation page as HTML or Markdown (spec "What the service does" 9). */

import { docsFor } from "../documents/docs_sections.ts";
import { AppError } from "../foundation/errors.ts";
import type { AppContext } from "./define.ts";
import { renderDocPage } from "./render.tsx";

/** The q-value a media range gets in an `Accept` header (RFC 9110 §12.5.1); 0 when absent. */
export function acceptQuality(accept: string, type: string): number {
  let best = 0;
  let specificity = -1;
  const [major] = type.split("/");
  for (const part of accept.split(",")) {
    const [range, ...params] = part.trim().split(";").map((s) => s.trim().toLowerCase());
    const spec = range === type ? 2 : range === `${major}/*` ? 1 : range === "*/*" ? 0 : -1;
    if (spec < 0 || spec < specificity) continue;
    const q = params.find((p) => p.startsWith("q="));
    const value = q ? Number(q.slice(2)) : 1;
    if (spec > specificity || value > best) best = Number.isFinite(value) ? value : 0;
    specificity = spec;
  }
  return best;
}

/** Whether the request asks for Markdown over HTML. */
export function prefersMarkdown(c: AppContext): boolean {
  const accept = c.req.header("accept");
  if (!accept) return false;
  // Only an explicit text/markdown counts: `*/*` (curl, fetch) keeps the HTML default.
  if (!/text\/markdown/i.test(accept)) return false;
  const md = acceptQuality(accept, "text/markdown");
  return md > 0 && md >= acceptQuality(accept, "text/html");
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
  // CSP, X-Frame-Options and Referrer-Policy of the HTML form: lib/http/security_headers.ts.
  const body = markdown ? page.markdown : renderDocPage(page, orderedPages(baseUrl));
  return new Response(c.req.method === "HEAD" ? null : body, { status: 200, headers });
}
