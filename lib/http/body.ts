/** Reading request bodies with a size cap and a clear error for each way they go wrong. */

import { AppError } from "../foundation/errors.ts";
import { readCapped, StreamTooLargeError } from "../foundation/streams.ts";
import type { AppContext } from "./define.ts";

/** Default cap for JSON bodies (the proxy's CSV import sets its own). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads the raw body as text, refusing more than `maxBytes` without buffering it all: the
 * declared `Content-Length` is checked first, then the stream is counted as it arrives.
 */
export async function readBodyText(c: AppContext, maxBytes: number): Promise<string> {
  const declared = c.req.header("content-length");
  if (declared !== undefined && Number(declared) > maxBytes) {
    throw new AppError("payload_too_large", `The body exceeds ${maxBytes} bytes.`, {
      details: { maxBytes },
    });
  }
  const body = c.req.raw.body;
  if (!body) return "";
  if (declared !== undefined) {
    // Length known and within the cap: the runtime cannot deliver more than it declared.
    return await c.req.text();
  }
  try {
    return new TextDecoder().decode(await readCapped(body, maxBytes));
  } catch (err) {
    if (!(err instanceof StreamTooLargeError)) throw err;
    throw new AppError("payload_too_large", `The body exceeds ${maxBytes} bytes.`, {
      details: { maxBytes },
    });
  }
}

/** Whether the request declares a JSON body (`application/json`, any parameters). */
export function isJsonContentType(c: AppContext): boolean {
  const type = c.req.header("content-type");
  if (!type) return false;
  const media = type.split(";", 1)[0].trim().toLowerCase();
  return media === "application/json" || media.endsWith("+json");
}

/**
 * Reads and parses a JSON body. Throws `unsupported_media_type` for another content type,
 * `payload_too_large` past `maxBytes`, `invalid_json` when it does not parse.
 */
export async function readJsonBody(
  c: AppContext,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<unknown> {
  if (!isJsonContentType(c)) {
    throw new AppError(
      "unsupported_media_type",
      "Send the body as Content-Type: application/json.",
    );
  }
  const text = await readBodyText(c, maxBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", "The body is not well-formed JSON.");
  }
}
