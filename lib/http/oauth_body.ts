/** Reading OAuth request bodies: form-encoded (what every OAuth client sends) or JSON. */

import { AppError } from "../foundation/errors.ts";
import { readBodyText } from "./body.ts";
import type { AppContext } from "./define.ts";

/** Largest OAuth request body accepted. */
export const MAX_OAUTH_BODY_BYTES = 16 * 1024;

/**
 * The body's parameters as one string each. `application/x-www-form-urlencoded` is the format of
 * RFC 6749 §3.2 / OAuth 2.1 §3.2.2; JSON is accepted too. A repeated parameter is refused (RFC
 * 6749 §3.1: "MUST NOT be included more than once").
 */
export async function readOAuthParams(c: AppContext): Promise<Record<string, unknown>> {
  const type = (c.req.header("content-type") ?? "").split(";", 1)[0].trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") {
    const text = await readBodyText(c, MAX_OAUTH_BODY_BYTES);
    const params: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(text)) {
      if (Object.hasOwn(params, k)) {
        throw new AppError("invalid_request", `${k} was sent more than once.`);
      }
      params[k] = v;
    }
    return params;
  }
  if (type === "application/json" || type.endsWith("+json")) {
    const text = await readBodyText(c, MAX_OAUTH_BODY_BYTES);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AppError("invalid_request", "The body is not well-formed JSON.");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new AppError("invalid_request", "The body must be a JSON object.");
    }
    return parsed as Record<string, unknown>;
  }
  throw new AppError(
    "invalid_request",
    "Send the body as application/x-www-form-urlencoded (or application/json).",
  );
}
