/** Files under `static/`, indexed once; request paths are looked up, never joined onto disk. */

import { AppError } from "../../foundation/errors.ts";
import type { AppContext } from "./define.ts";
import { SERVICE_WORKER_CSP } from "./security_headers.ts";

const STATIC_DIR = new URL("../../../static/", import.meta.url);

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  txt: "text/plain; charset=utf-8",
  tgz: "application/gzip",
  webmanifest: "application/manifest+json",
};

interface StaticFile {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  etag: string;
}

let index: Map<string, StaticFile> | null = null;

function walk(dir: URL, prefix: string, into: Map<string, StaticFile>): void {
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) {
      walk(new URL(entry.name + "/", dir), `${prefix}${entry.name}/`, into);
    } else if (entry.isFile) {
      const body = Deno.readFileSync(new URL(entry.name, dir));
      const ext = entry.name.split(".").pop() ?? "";
      let hash = 2166136261;
      for (const byte of body) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
      into.set(prefix + entry.name, {
        body,
        type: TYPES[ext] ?? "application/octet-stream",
        etag: `"${body.byteLength.toString(16)}-${hash.toString(16)}"`,
      });
    }
  }
}

/** Serves `static/<path>` with an ETag, or throws `not_found`. */
export function staticResponse(c: AppContext, path: string): Response {
  if (!index) {
    index = new Map();
    walk(STATIC_DIR, "", index);
  }
  const file = index.get(path);
  if (!file) throw new AppError("not_found", `No static file "${path}".`);
  const headers = new Headers({
    "Content-Type": file.type,
    "ETag": file.etag,
    "Cache-Control": "public, max-age=3600",
  });
  if (c.req.header("if-none-match") === file.etag) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(c.req.method === "HEAD" ? null : file.body, { status: 200, headers });
}

/**
 * `static/sw.js` as the service worker at `/sw.js` (issue #24): at the site's root its default
 * scope is the whole site (Service Workers §4.1: the script's folder), which it needs to see the
 * sign-out form post, so no `Service-Worker-Allowed` header is needed. `no-cache` makes every
 * update check ask the server (with the ETag) so a deploy's new worker is found on the next load.
 */
export function serviceWorkerResponse(c: AppContext): Response {
  const res = staticResponse(c, "sw.js");
  res.headers.set("Cache-Control", "no-cache");
  res.headers.set("Content-Security-Policy", SERVICE_WORKER_CSP);
  return res;
}
