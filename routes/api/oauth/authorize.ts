/**
 * `GET /api/oauth/authorize`: the authorization endpoint (OAuth 2.1 §4.1.1) — sign-in, then the
 * consent screen. `POST` receives the page's own forms (form-encoded, so no JavaScript is needed).
 * CORS is off under this path (lib/http/common_headers.ts): no other origin may read these pages.
 */

import { z } from "zod";
import { define } from "../../../lib/http/define.ts";
import { serveAuthorizePage, submitAuthorizeForm } from "../../../lib/http/oauth_authorize.ts";

/** The form body: at most 8 KB of `application/x-www-form-urlencoded`. */
const FormBody = z.string().max(8192);

export const handler = define.handlers({
  GET: (c) => serveAuthorizePage(c),
  async POST(c) {
    const text = FormBody.safeParse(await c.req.text());
    const fields = text.success ? Object.fromEntries(new URLSearchParams(text.data)) : {};
    return await submitAuthorizeForm(c, fields);
  },
});
