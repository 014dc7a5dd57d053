/** `POST /api/tokens`: mint, list and revoke the caller's API tokens; sessions only (DESIGN §7). */

import { createApiToken, listApiTokens, revokeApiToken } from "../../lib/accounts/api_tokens.ts";
import { TokensRequest } from "../../lib/accounts/token_messages.ts";
import { requireSession } from "../../lib/http/auth.ts";
import { readJsonBody } from "../../lib/http/body.ts";
import { define } from "../../lib/http/define.ts";
import { applyDeprecation } from "../../lib/http/deprecation.ts";
import { enforceRateLimit } from "../../lib/http/rate_limit.ts";

export const handler = define.handlers({
  async POST(c) {
    const session = await requireSession(c);
    await enforceRateLimit(c, "tokens", session.memberId);
    const body = TokensRequest.parse(await readJsonBody(c, 4096));
    applyDeprecation(c, "action", `/api/tokens#${body.action}`);
    const { kv, clock, access } = c.var.deps;
    c.header("Cache-Control", "no-store");
    switch (body.action) {
      case "create":
        return c.json(
          await createApiToken(kv, clock, session.memberId, body.name, body.scopes),
          201,
        );
      case "list":
        return c.json({ tokens: await listApiTokens(kv, session.memberId, access.tokens) });
      case "revoke":
        await revokeApiToken(kv, session.memberId, body.id);
        return c.json({ revoked: true, id: body.id });
    }
  },
});
