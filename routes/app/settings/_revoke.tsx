/**
 * What the two revoke routes share (a `_` file, not a route): `/app/settings/tokens/revoke` and
 * `/app/settings/apps/revoke` first show a confirm page (no JS needed), then revoke through the
 * REST action — `/api/tokens` `revoke` or `/api/proxy` `revokeGrant`, each under its own quota.
 */

import { ConfirmPage } from "../../../components/ConfirmPage.tsx";
import { AppError } from "../../../lib/foundation/errors.ts";
import { type PageMember, redirectTo } from "../../../lib/http/web/browser_session.ts";
import type { AppContext } from "../../../lib/http/kernel/define.ts";
import { runPageAction } from "../../../lib/http/web/page_actions.ts";
import { readForm } from "../../../lib/http/web/page_forms.ts";
import { pageResponse } from "../../../lib/http/web/pages.ts";
import type { GrantSummary } from "../../../lib/oauth/grants.ts";
import { loadTokens, RevokeForm } from "../../../lib/webapp/settings.ts";
import { postedBy } from "./_settings_page.tsx";

type Kind = "token" | "app";

/** `POST …/revoke`: confirm (no JS), then revoke. */
export function submitRevoke(kind: Kind) {
  return async (c: AppContext): Promise<Response> => {
    const form = await readForm(c);
    const page = await postedBy(c, form);
    const { id, confirmed } = RevokeForm.parse(form);
    const anchor = kind === "token" ? "tokens" : "connected-apps";
    const label = await labelOf(c, page, { kind, id });
    if (!confirmed) return await confirmRevoke(c, page, { kind, id, label });
    if (kind === "token") await runPageAction(c, page, "tokens.revoke", { id });
    else await runPageAction(c, page, "proxy.revokeGrant", { grantId: id });
    // The flash names what went (issue #25): with several tokens, "a token" says too little.
    const what = kind === "token"
      ? `The token “${label}” was revoked`
      : `${label} was disconnected`;
    return redirectTo(c, `/app/settings#${anchor}`, `${what}: it is refused from now on.`);
  };
}

/**
 * The name the member gave the token, or the app's as the Settings list shows it; `not_found`
 * for neither. A token's name is a read (no quota); an app's is the `listGrants` action.
 */
async function labelOf(
  c: AppContext,
  page: PageMember,
  { kind, id }: { kind: Kind; id: string },
): Promise<string> {
  if (kind === "token") {
    const token = (await loadTokens(c.var.deps, page.memberId)).find((t) => t.id === id);
    if (!token) throw new AppError("not_found", "No such token.");
    return token.name;
  }
  const { grants } = await runPageAction(c, page, "proxy.listGrants") as { grants: GrantSummary[] };
  const grant = grants.find((g) => g.grantId === id);
  if (!grant) throw new AppError("not_found", "No such connected app.");
  return grant.clientName ?? grant.redirectHost;
}

function confirmRevoke(
  c: AppContext,
  page: PageMember,
  { kind, id, label }: { kind: Kind; id: string; label: string },
): Response {
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
