/**
 * `GET/POST /app/columns`: list, add (own or starter templates), edit, move, archive, restore and
 * delete columns. Every change goes through the `createColumn`, `updateColumn`, `archiveColumn`,
 * `moveColumn` and `deleteColumn` proxy actions (`runPageAction`: the functions `POST /api/proxy` runs, under its
 * quota). The column form's schema and the starter templates: lib/webapp/columns.ts.
 */

import { ColumnsPage, type ColumnsPageProps } from "../../components/ColumnsPage.tsx";
import { ConfirmPage } from "../../components/ConfirmPage.tsx";
import { AppError } from "../../lib/foundation/errors.ts";
import { listColumns } from "../../lib/record/store.ts";
import type { Column } from "../../lib/record/types.ts";
import {
  columnAnchor,
  moveAnchor,
  readColumnForm,
  starterTemplates,
  templateInput,
} from "../../lib/webapp/columns.ts";
import { type AppContext, define } from "../../lib/http/kernel/define.ts";
import {
  type PageMember,
  redirectTo,
  requirePageMember,
  safeNext,
  verifyFormPost,
} from "../../lib/http/web/browser_session.ts";
import { runPageAction } from "../../lib/http/web/page_actions.ts";
import { readForm } from "../../lib/http/web/page_forms.ts";
import { htmlPage, pageResponse } from "../../lib/http/web/pages.ts";

async function render(
  c: AppContext,
  page: PageMember,
  extra: Partial<ColumnsPageProps> = {},
  status = 200,
) {
  const columns = await listColumns(c.var.deps.kv, page.memberId);
  return pageResponse(
    c,
    <ColumnsPage
      member={page.member}
      csrfToken={page.csrfToken}
      flash={page.flash}
      columns={columns}
      templates={starterTemplates(page.member.units)}
      {...extra}
    />,
    { status },
  );
}

/** `GET /app/columns`. */
async function showColumns(c: AppContext): Promise<Response> {
  const page = await requirePageMember(c);
  return await render(c, page);
}

/** Adds the templates not added yet, in order, until the column limit. */
async function addTemplates(c: AppContext, page: PageMember, only?: string): Promise<string> {
  const taken = new Set((await listColumns(c.var.deps.kv, page.memberId)).map((x) => x.key));
  const wanted = starterTemplates(page.member.units).filter((t) =>
    !taken.has(t.key) && (only === undefined || t.key === only)
  );
  let added = 0;
  for (const t of wanted) {
    try {
      await runPageAction(c, page, "proxy.createColumn", { ...templateInput(t) });
      added++;
    } catch (err) {
      if (err instanceof AppError && err.code === "too_many_columns") {
        return `Added ${added}; the column limit is reached.`;
      }
      throw err;
    }
  }
  if (added === 0) return "Those starter columns are already there.";
  return added === 1 ? `Added ${wanted[0].label}.` : `Added ${added} columns.`;
}

/** The column named by the form, or `unknown_column`. */
function columnOf(columns: Column[], key: string | undefined): Column {
  const col = columns.find((x) => x.key === key);
  if (!col) throw new AppError("unknown_column", "That column no longer exists.");
  return col;
}

/** Archive or Restore, back at the column with the focus on the button that undoes it. */
async function archiveOrRestore(
  c: AppContext,
  page: PageMember,
  col: Column,
  action: "archive" | "restore",
): Promise<Response> {
  const archived = action === "archive";
  await runPageAction(c, page, "proxy.archiveColumn", { key: col.key, archived });
  const anchor = columnAnchor(col.key, archived ? "restore" : "archive");
  const flash = archived ? `Archived ${col.label}.` : `Restored ${col.label}.`;
  return redirectTo(c, `/app/columns#${anchor}`, flash);
}

/** ↑ or ↓, back at the column's arrow (issue #25, defect 6: not the top of the page). */
async function move(
  c: AppContext,
  page: PageMember,
  col: Column,
  direction: "up" | "down",
): Promise<Response> {
  const { columns } = await runPageAction(c, page, "proxy.moveColumn", {
    key: col.key,
    direction,
  }) as { columns: Column[] };
  const anchor = moveAnchor(columns, col.key, direction);
  return redirectTo(c, `/app/columns#${anchor}`, `Moved ${col.label} ${direction}.`);
}

/**
 * "Delete…": first a page that asks (no JavaScript needed), then the `deleteColumn` action, which
 * removes the column and every value logged in it (lib/record/column_delete.ts).
 */
async function deleteOrConfirm(
  c: AppContext,
  page: PageMember,
  col: Column,
  confirmed: boolean,
): Promise<Response> {
  if (!confirmed) {
    return pageResponse(
      c,
      <ConfirmPage
        member={page.member}
        csrfToken={page.csrfToken}
        active="columns"
        title={`Delete ${col.label}?`}
        question={`Delete the column “${col.label}” and every value logged in it? ` +
          "This cannot be undone: they leave your History, the tools and your exports. " +
          "Archive it instead to keep them."}
        action="/app/columns"
        fields={{ do: "delete", key: col.key }}
        button={`Delete ${col.label}`}
        cancelHref={`/app/columns#${columnAnchor(col.key)}`}
      />,
    );
  }
  const done = await runPageAction(c, page, "proxy.deleteColumn", { key: col.key }) as {
    deletedValues: number;
  };
  const values = done.deletedValues === 1 ? "1 value" : `${done.deletedValues} values`;
  return redirectTo(c, "/app/columns#yours-h", `Deleted ${col.label} and its ${values}.`);
}

/** `POST /app/columns`: one action per button (`do`, or `template=<key>`). */
async function submitColumns(c: AppContext): Promise<Response> {
  const page = await requirePageMember(c);
  const form = await readForm(c);
  verifyFormPost(c, form);
  const done = (flash: string) => redirectTo(c, "/app/columns", flash);
  if (form.template) return done(await addTemplates(c, page, form.template));
  if (form.do === "templates_all") {
    const flash = await addTemplates(c, page);
    return redirectTo(c, safeNext(form.return, "/app/columns"), flash);
  }
  const columns = await listColumns(c.var.deps.kv, page.memberId);
  if (form.do === "add") {
    const read = readColumnForm(form, {
      creating: true,
      takenKeys: columns.map((x) => x.key),
      takenLabels: columns.map((x) => x.label),
    });
    if (!read.ok) return await render(c, page, { adding: { form, errors: read.errors } }, 422);
    try {
      await runPageAction(c, page, "proxy.createColumn", { ...read.input });
    } catch (err) {
      if (err instanceof AppError && err.status < 500 && err.code !== "rate_limited") {
        return await render(c, page, { adding: { form, errors: { label: err.message } } }, 422);
      }
      throw err;
    }
    // To the new column (the form's `#add` would otherwise carry over to the redirect).
    const anchor = columnAnchor(read.input.key as string);
    return redirectTo(c, `/app/columns#${anchor}`, `Added ${read.input.label}.`);
  }
  const col = columnOf(columns, form.key);
  switch (form.do) {
    case "edit": {
      // A label left as it was is no clash, even where two columns already share it.
      const renamed = (form.label ?? "").trim().toLowerCase() !== col.label.toLowerCase();
      const others = columns.filter((x) => x.key !== col.key).map((x) => x.label);
      const read = readColumnForm(form, {
        creating: false,
        takenKeys: [],
        takenLabels: renamed ? others : [],
        type: col.type,
      });
      if (!read.ok) {
        return await render(c, page, { editing: { key: col.key, form, errors: read.errors } }, 422);
      }
      try {
        await runPageAction(c, page, "proxy.updateColumn", {
          key: col.key,
          ...read.input,
        });
      } catch (err) {
        if (err instanceof AppError && err.code === "invalid_request") {
          const errors = { goal_op: err.message };
          return await render(c, page, { editing: { key: col.key, form, errors } }, 422);
        }
        throw err;
      }
      return redirectTo(c, `/app/columns#${columnAnchor(col.key)}`, `Saved ${read.input.label}.`);
    }
    case "archive":
    case "restore":
      return await archiveOrRestore(c, page, col, form.do);
    case "up":
    case "down":
      return await move(c, page, col, form.do);
    case "delete":
      return await deleteOrConfirm(c, page, col, form.confirmed === "yes");
    default:
      throw new AppError("invalid_request", "Unknown action.");
  }
}

export const handler = define.handlers({
  GET: htmlPage(showColumns),
  POST: htmlPage(submitColumns),
});
