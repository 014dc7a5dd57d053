/** `POST /api/oauth/token`: authorization_code and refresh_token grants (OAuth 2.1 §3.2). */

import { define } from "../../../lib/http/kernel/define.ts";
import { readOAuthParams } from "../../../lib/http/kernel/body.ts";
import { noStoreJson, oauthEndpoint } from "../../../lib/http/oauth/oauth_errors.ts";
import { enforceRateLimit } from "../../../lib/http/kernel/rate_limit.ts";
import { oauthContextOf } from "../../../lib/http/oauth/oauth_context.ts";
import { handleTokenRequest, TokenRequest } from "../../../lib/oauth/token.ts";

export const handler = define.handlers({
  POST: (c) =>
    oauthEndpoint(c, async () => {
      await enforceRateLimit(c, "oauth", c.var.clientIp);
      const params = TokenRequest.parse(await readOAuthParams(c));
      return noStoreJson(await handleTokenRequest(oauthContextOf(c), params));
    }),
});
