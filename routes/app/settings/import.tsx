/**
 * `POST /app/settings/import`: upload → preview (a dry run) → confirm → one commit, each step the
 * `importRecord` action `/api/proxy` runs (and its `proxy` quota); then a 303 with a flash.
 */

import { z } from "zod";
import { ImportPreviewPage } from "../../../components/ImportPreviewPage.tsx";
import { AppError } from "../../../lib/foundation/errors.ts";
import {
  type PageMember,
  redirectTo,
  requirePageMember,
} from "../../../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../../../lib/http/kernel/define.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { readMultipartForm } from "../../../lib/http/web/page_forms.ts";
import { htmlPage, pageResponse } from "../../../lib/http/web/pages.ts";
import type { ImportResult } from "../../../lib/record/import_plan.ts";
import { MAX_IMPORT_BYTES } from "../../../lib/record/import_source.ts";
import { importInputOf, importOptionsOf } from "../../../lib/webapp/settings.ts";
import { postedBy, reopenSettings, settingsPage } from "./_settings_page.tsx";

/** Multipart cap: the file plus its base64 copy on the confirm step, and the small fields. */
const MAX_IMPORT_FORM_BYTES = Math.ceil(MAX_IMPORT_BYTES * 4 / 3) + 64 * 1024;

/** The upload or the confirmed preview; a file over the cap is the page with a 413. */
async function submitImport(c: AppContext): Promise<Response> {
  let upload;
  try {
    upload = await readMultipartForm(c, MAX_IMPORT_FORM_BYTES);
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== "payload_too_large") throw err;
    const page = await requirePageMember(c);
    const message = `The file is larger than ${Math.round(MAX_IMPORT_BYTES / 1024)} KB.`;
    return await settingsPage(
      c,
      page,
      { failed: { form: "import", errors: { file: message } } },
      413,
    );
  }
  const { fields, files } = upload;
  const page = await postedBy(c, fields);
  const file = files.file;
  const bytes = file ? new Uint8Array(await file.arrayBuffer()) : payloadBytes(fields.payload);
  if (!bytes) {
    const errors = { file: "The file sent back by the preview is damaged; choose it again." };
    return await settingsPage(c, page, { failed: { form: "import", errors, values: fields } }, 422);
  }
  const fileName = (file?.name ?? fields.fileName ?? "upload").slice(0, 120);
  return await importStep(c, page, { fields, bytes, fileName });
}

/**
 * The bytes of the preview's hidden `payload` field (base64, ImportPreviewPage), or null when it
 * is not base64: `atob` throws on anything else, and a client's bad field is no fault of ours.
 */
function payloadBytes(payload = ""): Uint8Array | null {
  try {
    return Uint8Array.from(atob(payload), (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The preview of a dry run, or the commit's redirect; a refused file beside its field. */
async function importStep(
  c: AppContext,
  page: PageMember,
  { fields, bytes, fileName }: {
    fields: Record<string, string>;
    bytes: Uint8Array;
    fileName: string;
  },
): Promise<Response> {
  let options;
  try {
    options = importOptionsOf(fields);
    const input = importInputOf({ bytes, options });
    const result = await runPageAction(c, page, "proxy.importRecord", input) as ImportResult;
    if (result.committed) {
      return redirectTo(c, "/app/settings#import", importFlash(result));
    }
    const payload = btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
    return pageResponse(
      c,
      <ImportPreviewPage
        member={page.member}
        csrfToken={page.csrfToken}
        result={result}
        fileName={fileName}
        payload={payload}
      />,
    );
  } catch (err) {
    const e = err instanceof AppError ? err : null;
    if (!e && !(err instanceof z.ZodError)) throw err;
    const message = e?.message ?? "The file does not fit this format.";
    const status = e?.status && e.status < 500 ? e.status : 400;
    const field = fields.format && options ? "file" : "format";
    return await settingsPage(c, page, {
      failed: { form: "import", errors: { [field]: message }, values: fields },
    }, status === 413 ? 413 : 422);
  }
}

/** The message after a committed import; new columns by the label the member sees, not the key. */
function importFlash(r: ImportResult) {
  if (r.imported === 0) {
    return `Nothing to import: all ${r.unchanged} days are already logged exactly so.`;
  }
  const labelOf = (key: string) => r.mapping.find((m) => m.key === key)?.label ?? key;
  const created = r.createdColumns.map(labelOf);
  const cols = created.length ? `; new columns: ${created.join(", ")}` : "";
  return `Imported ${r.imported} days${cols}.`;
}

export const handler = define.handlers({
  GET: reopenSettings("import"),
  POST: htmlPage(submitImport),
});
