/**
 * The Settings page's requests (`/app/settings` and its POST sub-routes, issue #11 §6). Each
 * handler: the signed-in member (or a redirect to sign in), the CSRF check on every POST
 * (`verifyFormPost`, OWASP synchronizer token + Origin), one call of the function the REST API
 * runs, then a 303 with a flash (Post/Redirect/Get) or the page again with the error beside its
 * field. A new API token is rendered in the POST's own response (never a URL or a redirect) with
 * `Cache-Control: no-store` (webapp-anchors §5, show-once pattern).
 */

import { z } from "zod";
import { createApiToken, revokeApiToken } from "../accounts/api_tokens.ts";
import { AppError } from "../foundation/errors.ts";
import type { ImportResult } from "../record/import_plan.ts";
import { MAX_IMPORT_BYTES } from "../record/import_source.ts";
import {
  changePasswordFromForm,
  deleteAccountFromForm,
  importOptionsOf,
  loadSettings,
  RevokeForm,
  type RunAction,
  runImport,
  saveProfile,
  timeZoneNames,
  TokenForm,
} from "../webapp/settings.ts";
import { ConfirmPage } from "../../components/ConfirmPage.tsx";
import { ImportPreviewPage } from "../../components/ImportPreviewPage.tsx";
import { SettingsPage, type SettingsPageProps } from "../../components/SettingsPage.tsx";
import type { AppContext } from "./define.ts";
import {
  endBrowserSession,
  type PageMember,
  redirectTo,
  requirePageMember,
  verifyFormPost,
} from "./browser_session.ts";
import { type PageActionName, runPageAction } from "./page_actions.ts";
import { readForm, readMultipartForm } from "./page_forms.ts";
import { pageResponse } from "./pages.ts";
import { enforceRateLimit, passwordGuessesOf } from "./rate_limit.ts";

type Extra = Pick<SettingsPageProps, "newToken" | "failed">;

/** `runPageAction` bound to the page's member: a `RunAction` for lib/webapp/settings.ts. */
function runnerOf(c: AppContext, page: PageMember): RunAction {
  return ({ action, ...input }) =>
    runPageAction(c, page, `proxy.${action}` as PageActionName, input);
}

/** Renders the Settings page for `page`, with a new token or a failed form when given. */
async function settingsPage(c: AppContext, page: PageMember, extra: Extra = {}, status = 200) {
  const data = await loadSettings(c.var.deps, page.memberId, runnerOf(c, page));
  return pageResponse(
    c,
    <SettingsPage
      member={page.member}
      csrfToken={page.csrfToken}
      flash={page.flash}
      tokens={data.tokens}
      grants={data.grants}
      timeZones={timeZoneNames()}
      {...extra}
    />,
    { status },
  );
}

/** The signed-in member of a POST whose form passed the CSRF check. */
async function postedBy(c: AppContext, form: Record<string, string>) {
  verifyFormPost(c, form);
  return await requirePageMember(c);
}

/** `GET /app/settings`. */
export async function showSettings(c: AppContext): Promise<Response> {
  const page = await requirePageMember(c);
  return await settingsPage(c, page);
}

/** `POST /app/settings/profile`: `updateProfile`, errors beside the fields. */
export async function submitProfile(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  const page = await postedBy(c, form);
  const errors = await saveProfile(runnerOf(c, page), form);
  if (errors) {
    return await settingsPage(c, page, { failed: { form: "profile", errors, values: form } }, 422);
  }
  return redirectTo(c, "/app/settings#profile", "Profile saved.");
}

/** `POST /app/settings/tokens`: mint a read token and show it in this response, once. */
export async function submitToken(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  const page = await postedBy(c, form);
  await enforceRateLimit(c, "tokens", page.memberId);
  const parsed = TokenForm.safeParse(form);
  const fail = (name: string) =>
    settingsPage(c, page, { failed: { form: "token", errors: { name }, values: form } }, 422);
  if (!parsed.success) return await fail(parsed.error.issues[0].message);
  const { kv, clock } = c.var.deps;
  try {
    const newToken = await createApiToken({
      kv,
      clock,
      memberId: page.memberId,
      name: parsed.data.name,
      scopes: ["read"],
    });
    return await settingsPage(c, page, { newToken }, 201);
  } catch (err) {
    if (err instanceof AppError && err.code === "too_many_tokens") return await fail(err.message);
    throw err;
  }
}

/** `POST /app/settings/tokens/revoke` and `/apps/revoke`: confirm (no JS), then revoke. */
export function submitRevoke(kind: "token" | "app") {
  return async (c: AppContext): Promise<Response> => {
    const form = await readForm(c);
    const page = await postedBy(c, form);
    const { id, confirmed } = RevokeForm.parse(form);
    const anchor = kind === "token" ? "tokens" : "connected-apps";
    if (!confirmed) return await confirmRevoke(c, page, { kind, id });
    if (kind === "token") {
      await enforceRateLimit(c, "tokens", page.memberId);
      await revokeApiToken(c.var.deps.kv, page.memberId, id);
    } else {
      await runPageAction(c, page, "proxy.revokeGrant", { grantId: id });
    }
    const what = kind === "token" ? "The token was revoked" : "The app was disconnected";
    return redirectTo(c, `/app/settings#${anchor}`, `${what}: it is refused from now on.`);
  };
}

async function confirmRevoke(
  c: AppContext,
  page: PageMember,
  { kind, id }: { kind: "token" | "app"; id: string },
): Promise<Response> {
  const data = await loadSettings(c.var.deps, page.memberId, runnerOf(c, page));
  const name = kind === "token"
    ? data.tokens.find((t) => t.id === id)?.name
    : data.grants.find((g) => g.grantId === id)?.clientName ?? undefined;
  if (name === undefined && kind === "token") throw new AppError("not_found", "No such token.");
  if (kind === "app" && !data.grants.some((g) => g.grantId === id)) {
    throw new AppError("not_found", "No such connected app.");
  }
  const label = name ?? "this app";
  return pageResponse(
    c,
    <ConfirmPage
      member={page.member}
      csrfToken={page.csrfToken}
      title={kind === "token" ? "Revoke token?" : "Disconnect app?"}
      question={kind === "token"
        ? `Revoke the token “${label}”? Every program using it is refused from its next call.`
        : `Revoke ${label}? It loses access to your record at once.`}
      action={kind === "token" ? "/app/settings/tokens/revoke" : "/app/settings/apps/revoke"}
      id={id}
      button="Revoke"
      cancelHref={`/app/settings#${kind === "token" ? "tokens" : "connected-apps"}`}
    />,
  );
}

/**
 * `GET` of a settings POST address (`/app/settings/tokens`, …): the address a failed form or a new
 * token leaves in the bar. A phone that reloads a discarded tab, or a member who presses Enter in
 * the bar, sends a GET; it gets the section of Settings (a 303, state unchanged — a GET never acts),
 * not a 405 in JSON.
 */
export function reopenSettings(section: string) {
  return (c: AppContext): Response => redirectTo(c, `/app/settings#${section}`);
}

/** `GET /app/settings/export?format=csv|json`: the whole record as a download. */
export async function downloadExport(c: AppContext): Promise<Response> {
  const page = await requirePageMember(c);
  const format = c.req.query("format") === "json" ? "json" : "csv";
  const result = await runPageAction(c, page, "proxy.exportRecord", { format }) as
    & Record<string, unknown>
    & { csv?: string; exportedAt: string };
  const day = result.exportedAt.slice(0, 10);
  const body = format === "csv" ? result.csv! : JSON.stringify(result, null, 2);
  return new Response(body, {
    headers: {
      "Content-Type": format === "csv" ? "text/csv; charset=utf-8" : "application/json",
      "Content-Disposition": `attachment; filename="routine-tracker-${day}.${format}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** Multipart cap: the file plus its base64 copy on the confirm step, and the small fields. */
const MAX_IMPORT_FORM_BYTES = Math.ceil(MAX_IMPORT_BYTES * 4 / 3) + 64 * 1024;

/** `POST /app/settings/import`: upload → preview (dry run); confirm → commit → 303 with a flash. */
export async function submitImport(c: AppContext): Promise<Response> {
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
    const result = await runImport(runnerOf(c, page), { bytes, options });
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

/** `POST /app/settings/password`: `changePassword`; every other session is signed out. */
export async function submitPassword(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  const page = await postedBy(c, form);
  // Password guesses spend the same quota as /api/auth (OWASP brute-force advice).
  await enforceRateLimit(c, "auth", c.var.clientIp);
  const deps = { ...c.var.deps, guesses: passwordGuessesOf(c) };
  const errors = await changePasswordFromForm(deps, page, form);
  if (errors) {
    const values = { endTokensAndApps: form.endTokensAndApps === "on" ? "on" : "" };
    return await settingsPage(c, page, { failed: { form: "password", errors, values } }, 422);
  }
  const ended = form.endTokensAndApps === "on"
    ? "Every other device is signed out, and every API token and connected app is ended."
    : "Every other device is signed out; API tokens and connected apps still work.";
  return redirectTo(c, "/app/settings#password", `Password changed. ${ended}`);
}

/** `POST /app/settings/delete`: `deleteAccount`, then signed out, to the landing page. */
export async function submitDeleteAccount(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  const page = await postedBy(c, form);
  const errors = await deleteAccountFromForm(c.var.deps, {
    memberId: page.memberId,
    username: page.member.username,
  }, form);
  if (errors) {
    const failed = { form: "delete" as const, errors, values: form }; // the typed name stays
    return await settingsPage(c, page, { failed }, 422);
  }
  await endBrowserSession(c);
  return redirectTo(c, "/", "Your account and everything in it were deleted.");
}
