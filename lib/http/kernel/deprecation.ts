/**
 * Applying the deprecation registry to a request (DESIGN §12): endpoints are matched by the
 * common middleware, actions by the routes that dispatch on `action`, tools by the MCP transport.
 * A match records its status for the middleware to write the headers; a retired target is 410.
 */

import { type DeprecationKind, deprecationStatus } from "../../policy/deprecation.ts";
import { AppError } from "../../foundation/errors.ts";
import type { AppContext } from "./define.ts";

/**
 * Looks `target` up in the registry; when it is deprecated, marks the response for the
 * `Deprecation`/`Sunset`/`Link` headers, and throws `gone` once its Sunset moment has passed.
 */
export function applyDeprecation(c: AppContext, kind: DeprecationKind, target: string): void {
  const deps = c.get("deps");
  if (deps.deprecations.isEmpty) return;
  const entry = deps.deprecations.find(kind, target);
  if (!entry) return;
  const status = deprecationStatus(entry, deps.clock());
  if (!status) return;
  c.set("deprecation", status);
  if (status.retired) {
    const base = deps.config.baseUrl;
    throw new AppError("gone", `${target} was retired on ${entry.sunsetAt}.`, {
      details: { successor: status.successor ? base + status.successor : undefined },
    });
  }
}

/** Writes the headers of a recorded deprecation (RFC 9745 §2, RFC 8594 §3, RFC 8288 links). */
export function writeDeprecationHeaders(c: AppContext, headers: Headers): void {
  const status = c.get("deprecation");
  if (!status) return;
  const base = c.get("deps").config.baseUrl;
  headers.set("Deprecation", status.deprecationHeader);
  headers.append("Link", `<${base}/docs/versioning>; rel="deprecation"; type="text/html"`);
  if (status.sunsetHeader) headers.set("Sunset", status.sunsetHeader);
  if (status.successor) {
    headers.append("Link", `<${base}${status.successor}>; rel="successor-version"`);
  }
}
