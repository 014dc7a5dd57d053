/**
 * Serving a discovery document (or the CLI tarball): fixed content type, a strong ETag computed
 * from the body, `304 Not Modified` on a matching `If-None-Match` (RFC 9110 §13.1.2, §15.4.5).
 * Documents depend only on the base URL and the code, so each is built and hashed once per process.
 */

import { buildMcpManifest } from "../../documents/discovery.ts";
import { buildOpenApiDocument, OPENAPI_CONTENT_TYPE } from "../../documents/openapi.ts";
import type { AppContext } from "./define.ts";

/** A built document, ready to serve. */
export interface StaticDocument {
  body: Uint8Array;
  contentType: string;
  /** Strong validator: a quoted base64url SHA-256 of the body. */
  etag: string;
  /** Extra headers sent with every answer (e.g. `Content-Disposition`). */
  headers?: Record<string, string>;
}

/** What a document builder returns. */
export interface DocumentSource {
  body: string | Uint8Array;
  contentType: string;
  headers?: Record<string, string>;
}

const built = new Map<string, Promise<StaticDocument>>();

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The strong ETag of a body: `"<base64url sha-256>"`. */
export async function strongEtag(body: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body as BufferSource));
  return `"${base64url(digest)}"`;
}

/** Builds (once per `key`) and hashes a document. A failed build is not cached. */
export function cachedDocument(
  key: string,
  build: () => DocumentSource | Promise<DocumentSource>,
): Promise<StaticDocument> {
  let doc = built.get(key);
  if (!doc) {
    doc = (async () => {
      const source = await build();
      const body = typeof source.body === "string"
        ? new TextEncoder().encode(source.body)
        : source.body;
      return {
        body,
        contentType: source.contentType,
        etag: await strongEtag(body),
        headers: source.headers,
      };
    })();
    doc.catch(() => built.delete(key));
    built.set(key, doc);
  }
  return doc;
}

/**
 * True when `If-None-Match` names `etag` or is `*`. The comparison is weak, as RFC 9110 §13.1.2
 * requires for this field, so `W/"x"` matches `"x"`.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === bare;
  });
}

/** Answers with the document, or 304 when the client's copy is current. */
export function documentResponse(c: AppContext, doc: StaticDocument): Response {
  const headers = new Headers({
    ETag: doc.etag,
    "Cache-Control": "public, max-age=300",
    ...doc.headers,
  });
  if (ifNoneMatchHits(c.req.header("if-none-match"), doc.etag)) {
    return new Response(null, { status: 304, headers });
  }
  headers.set("Content-Type", doc.contentType);
  headers.set("Content-Length", String(doc.body.byteLength));
  return new Response(c.req.method === "HEAD" ? null : doc.body as BufferSource, {
    status: 200,
    headers,
  });
}

/** Serves the document `key` of this base URL, building it on first use. */
export async function serveDocument(
  c: AppContext,
  key: string,
  build: (baseUrl: string) => DocumentSource | Promise<DocumentSource>,
): Promise<Response> {
  const { baseUrl } = c.var.deps.config;
  const doc = await cachedDocument(`${baseUrl}\0${key}`, () => build(baseUrl));
  return documentResponse(c, doc);
}

/** The MCP manifest, served at `/.well-known/mcp.json` and its alias `/mcp.json`. */
export function mcpManifestResponse(c: AppContext): Promise<Response> {
  return serveDocument(c, "mcp.json", (base) => ({
    body: JSON.stringify(buildMcpManifest(base), null, 2),
    contentType: "application/json",
  }));
}

/** The OpenAPI description, served at `/openapi.json` and `/.well-known/openapi.json`. */
export function openApiResponse(c: AppContext): Promise<Response> {
  return serveDocument(c, "openapi.json", (base) => ({
    body: JSON.stringify(buildOpenApiDocument(base), null, 2),
    contentType: OPENAPI_CONTENT_TYPE,
  }));
}
