/**
 * `GET /api/oauth/authorize`: the authorization endpoint (OAuth 2.1 §4.1.1) — sign-in, then the
 * consent screen. `POST` receives the page's own forms (form-encoded, so no JavaScript is needed),
 * read only after the rate limit and the origin check (lib/http/oauth/oauth_authorize.ts).
 * CORS is off under this path (lib/http/kernel/common_headers.ts): no other origin may read these pages.
 */

import { define } from "../../../lib/http/kernel/define.ts";
import {
  serveAuthorizePage,
  submitAuthorizeForm,
} from "../../../lib/http/oauth/oauth_authorize.ts";

export const handler = define.handlers({
  GET: (c) => serveAuthorizePage(c),
  POST: (c) => submitAuthorizeForm(c),
});
