/**
 * `GET /app/settings/export?format=csv|json`: the whole record as a download, through the
 * `exportRecord` action `/api/proxy` runs (and its `proxy` quota).
 */

import { requirePageMember } from "../../../lib/http/web/browser_session.ts";
import { type AppContext, define } from "../../../lib/http/kernel/define.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { htmlPage } from "../../../lib/http/web/pages.ts";
import { exportFileName, exportJsonText } from "../../../lib/webapp/settings.ts";

/** The export as an attachment named by the member's day, never cached. */
async function downloadExport(c: AppContext): Promise<Response> {
  const page = await requirePageMember(c);
  const format = c.req.query("format") === "json" ? "json" : "csv";
  const result = await runPageAction(c, page, "proxy.exportRecord", { format }) as
    & Record<string, unknown>
    & { csv?: string; exportedAt: string; entries?: unknown[] };
  const body = format === "csv"
    ? result.csv!
    : exportJsonText({ ...result, entries: result.entries ?? [] });
  const name = exportFileName(page.member, result.exportedAt, format);
  return new Response(body, {
    headers: {
      "Content-Type": format === "csv" ? "text/csv; charset=utf-8" : "application/json",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

export const handler = define.handlers({ GET: htmlPage(downloadExport) });
