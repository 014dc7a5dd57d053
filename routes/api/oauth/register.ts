/** `POST /api/oauth/register`: open dynamic registration of public clients (RFC 7591 §3). */

import { define } from "../../../lib/http/kernel/define.ts";
import { readOAuthParams } from "../../../lib/http/kernel/body.ts";
import { noStoreJson, oauthEndpoint } from "../../../lib/http/oauth/oauth_errors.ts";
import { enforceRateLimit } from "../../../lib/http/kernel/rate_limit.ts";
import { registerClient, registrationResponse } from "../../../lib/oauth/clients.ts";

export const handler = define.handlers({
  POST: (c) =>
    oauthEndpoint(c, async () => {
      await enforceRateLimit(c, "oauth", c.var.clientIp);
      // The body is validated by `ClientMetadata` inside registerClient, so that every failure is
      // an RFC 7591 §3.2.2 error rather than a generic one.
      const metadata = await readOAuthParams(c);
      // Valid registrations also spend the lower `oauth-register` quota before anything is
      // stored: each kept client costs storage (RFC 7591 §5; issue #19 item 5).
      const client = await registerClient(
        c.var.deps.kv,
        c.var.deps.clock,
        metadata,
        () => enforceRateLimit(c, "oauth-register", c.var.clientIp),
      );
      return noStoreJson(registrationResponse(client), 201);
    }),
});
