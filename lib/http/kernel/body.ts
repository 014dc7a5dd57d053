/**
 * The one request-body reader every route uses (its media types: lib/http/kernel/media_type.ts). A body is refused
 * by its declared `Content-Length` before a byte is read, then counted while it streams, so an
 * oversized upload is never buffered (issue #9: a 400 MB body must not cost 400 MB). A client that
 * hangs up mid-body is logged as one short line, not as an internal error with a stack.
 */

import { AppError } from "../../foundation/errors.ts";
import { readCapped, StreamTooLargeError } from "../../foundation/streams.ts";
import type { AppContext } from "./define.ts";
import { isJsonMediaType, mediaTypeOf } from "./media_type.ts";

/** Default cap for JSON bodies (the proxy's CSV import sets its own). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** Largest OAuth request body accepted (registration metadata, token requests). */
export const MAX_OAUTH_BODY_BYTES = 16 * 1024;

/** Whether the request declares a JSON body (`application/json`, any parameters). */
export function isJsonContentType(c: AppContext): boolean {
  return isJsonMediaType(mediaTypeOf(c));
}

function tooLarge(maxBytes: number): AppError {
  return new AppError("payload_too_large", `The body exceeds ${maxBytes} bytes.`, {
    details: { maxBytes },
  });
}

/**
 * Reads the raw body, refusing more than `maxBytes`: a declared `Content-Length` over the cap is
 * refused before reading (RFC 9110 §15.5.14), and the stream is counted as it arrives, so a
 * chunked upload is cancelled as soon as it passes the cap. `whole` reads a body of declared
 * length at native speed, `fromBytes` turns a counted one into the same type.
 */
async function readWithinCap<T>(
  c: AppContext,
  maxBytes: number,
  as: { whole(request: Request): Promise<T>; fromBytes(bytes: Uint8Array): T },
): Promise<T> {
  const declared = c.req.header("content-length");
  if (declared !== undefined && !(Number(declared) <= maxBytes)) throw tooLarge(maxBytes);
  const request = c.req.raw;
  try {
    // A declared length within the cap is all the runtime will deliver (HTTP/1.1 framing, RFC 9112
    // §6.2), so read it whole; only an undeclared (chunked) length is counted here. `body` is not
    // touched on that path: reading it turns a body Deno already holds into a stream (~5 µs).
    if (declared !== undefined) return await as.whole(request);
    const body = request.body;
    return as.fromBytes(body ? await readCapped(body, maxBytes) : new Uint8Array());
  } catch (err) {
    if (err instanceof StreamTooLargeError) throw tooLarge(maxBytes);
    // Only the client's connection feeds this stream: a failure here is the client hanging up
    // mid-body (a closed socket surfaces as BadResource or an Http error), never a fault of ours.
    // The request's log line carries the abort flag: no line of its own, no stack (300 dropped
    // uploads must not become 300 stack traces), and no raw path.
    c.set("clientAborted", true);
    throw new AppError("invalid_request", "The client closed the connection mid-body.", {
      cause: err,
    });
  }
}

const utf8 = new TextDecoder();
const AS_TEXT = {
  whole: (request: Request) => request.text(),
  fromBytes: (bytes: Uint8Array) => utf8.decode(bytes),
};

/** Reads the raw body as UTF-8 text, capped as `readWithinCap`. */
export function readBodyText(c: AppContext, maxBytes: number): Promise<string> {
  return readWithinCap(c, maxBytes, AS_TEXT);
}

const FORM = "application/x-www-form-urlencoded";

/** Refuses, before reading, a body whose media type `accepts` does not take (RFC 9110 §15.5.16). */
function requireMediaType(c: AppContext, accepts: (type: string) => boolean, name: string): void {
  if (!accepts(mediaTypeOf(c))) {
    throw new AppError("unsupported_media_type", `Send the body as Content-Type: ${name}.`);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", "The body is not well-formed JSON.");
  }
}

/**
 * Form fields, one string each. A repeated field is refused: RFC 6749 §3.1 says request
 * parameters "MUST NOT be included more than once", and no form of ours repeats one.
 */
function parseForm(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    if (Object.hasOwn(fields, k)) {
      throw new AppError("invalid_request", `${k} was sent more than once.`);
    }
    fields[k] = v;
  }
  return fields;
}

/**
 * Reads and parses a JSON body. Throws `unsupported_media_type` for another content type
 * (checked before reading), `payload_too_large` past `maxBytes`, `invalid_json` when it does not
 * parse.
 */
export async function readJsonBody(
  c: AppContext,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<unknown> {
  requireMediaType(c, isJsonMediaType, "application/json");
  return parseJson(await readBodyText(c, maxBytes));
}

/** Reads an `application/x-www-form-urlencoded` body (a browser form) into its fields. */
export async function readFormBody(
  c: AppContext,
  maxBytes: number,
): Promise<Record<string, string>> {
  requireMediaType(c, (type) => type === FORM, FORM);
  return parseForm(await readBodyText(c, maxBytes));
}

/**
 * Reads an OAuth request's parameters: `application/x-www-form-urlencoded`, the format of RFC
 * 6749 §3.2 / OAuth 2.1 §3.2.2, or a JSON object (RFC 7591 §3.1 registration).
 */
export async function readOAuthParams(
  c: AppContext,
  maxBytes = MAX_OAUTH_BODY_BYTES,
): Promise<Record<string, unknown>> {
  const type = mediaTypeOf(c);
  if (type === FORM) {
    return parseForm(await readBodyText(c, maxBytes));
  }
  if (!isJsonMediaType(type)) {
    throw new AppError(
      "unsupported_media_type",
      "Send the body as application/x-www-form-urlencoded (or application/json).",
    );
  }
  const parsed = parseJson(await readBodyText(c, maxBytes));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new AppError("invalid_request", "The body must be a JSON object.");
  }
  return parsed as Record<string, unknown>;
}
