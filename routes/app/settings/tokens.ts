/**
 * `POST /app/settings/tokens`: create a read-only API token (`/api/tokens` `create`, its `tokens`
 * quota), shown in this response only — never a URL or a redirect — with `Cache-Control: no-store`
 * (webapp-anchors §5, show-once pattern). The form's one-time nonce is the create's
 * `Idempotency-Key`: sent again (a reload), it answers "already created" and mints nothing.
 */

import { AppError } from "../../../lib/foundation/errors.ts";
import { type AppContext, define } from "../../../lib/http/kernel/define.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { readForm } from "../../../lib/http/web/page_forms.ts";
import { htmlPage } from "../../../lib/http/web/pages.ts";
import { TokenForm } from "../../../lib/webapp/settings.ts";
import type { SettingsPageProps } from "../../../components/SettingsPage.tsx";
import { postedBy, reopenSettings, settingsPage } from "./_settings_page.tsx";

type NewToken = SettingsPageProps["newToken"];

/** Mints a read token and shows it in this response, once; or the form with its error. */
async function submitToken(c: AppContext): Promise<Response> {
  const form = await readForm(c);
  const page = await postedBy(c, form);
  const fail = (name: string) =>
    settingsPage(c, page, { failed: { form: "token", errors: { name }, values: form } }, 422);
  const parsed = TokenForm.safeParse(form);
  if (!parsed.success) return await fail(parsed.error.issues[0].message);
  try {
    const input = { name: parsed.data.name, scopes: ["read"] };
    const once = { idempotencyKey: parsed.data.nonce };
    const newToken = await runPageAction(c, page, "tokens.create", input, once);
    return await settingsPage(c, page, { newToken: newToken as NewToken }, 201);
  } catch (err) {
    if (err instanceof AppError && err.code === "too_many_tokens") return await fail(err.message);
    // The same form again (a reload of this page, a second click): say so, mint nothing.
    if (err instanceof AppError && err.code === "already_created") {
      return await settingsPage(c, { ...page, flash: err.message }, {}, 409);
    }
    throw err;
  }
}

export const handler = define.handlers({
  GET: reopenSettings("tokens"),
  POST: htmlPage(submitToken),
});
