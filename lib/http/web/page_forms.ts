/**
 * Reading the body of a page's form post (DESIGN §14): urlencoded fields, or a multipart upload
 * with its files, each under a byte cap. The CSRF check of a post is `verifyFormPost`
 * (lib/http/web/browser_session.ts).
 */

import { AppError } from "../../foundation/errors.ts";
import { readBodyText } from "../kernel/body.ts";
import type { AppContext } from "../kernel/define.ts";
import { mediaTypeOf } from "../kernel/media_type.ts";

/** Largest urlencoded page form accepted. */
export const MAX_PAGE_FORM_BYTES = 64 * 1024;

/**
 * A form body as one string per field (the first of repeated fields): urlencoded, or multipart
 * with its file parts left out (use `readMultipartForm` for uploads). Unknown types give `{}`.
 */
export async function readForm(
  c: AppContext,
  maxBytes = MAX_PAGE_FORM_BYTES,
): Promise<Record<string, string>> {
  const type = mediaTypeOf(c);
  if (type === "multipart/form-data") return (await readMultipartForm(c, maxBytes)).fields;
  if (type !== "application/x-www-form-urlencoded") return {};
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(await readBodyText(c, maxBytes))) {
    if (!Object.hasOwn(out, k)) out[k] = v;
  }
  return out;
}

/** A multipart form: its text fields and its files (at most `maxBytes` in all). */
export async function readMultipartForm(
  c: AppContext,
  maxBytes: number,
): Promise<{ fields: Record<string, string>; files: Record<string, File> }> {
  const declared = Number(c.req.header("content-length") ?? NaN);
  if (!(declared <= maxBytes)) {
    throw new AppError("payload_too_large", `The upload exceeds ${maxBytes} bytes.`, {
      details: { maxBytes },
    });
  }
  const fields: Record<string, string> = {};
  const files: Record<string, File> = {};
  let data: FormData;
  try {
    data = await c.req.raw.formData();
  } catch {
    throw new AppError("invalid_request", "The form could not be read.");
  }
  for (const [k, v] of data) {
    if (typeof v === "string") fields[k] ??= v;
    else files[k] ??= v;
  }
  return { fields, files };
}
