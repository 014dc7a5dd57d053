/** `POST /api/tokens`: mint, list and revoke the caller's API tokens; sessions only (DESIGN §7). */

import { TokensRequest } from "../../lib/accounts/token_messages.ts";
import { TOKEN_ACTIONS } from "../../lib/actions/token_actions.ts";
import { actionEndpoint } from "../../lib/http/action_endpoint.ts";
import { define } from "../../lib/http/define.ts";

export const handler = define.handlers({
  POST: actionEndpoint({
    path: "/api/tokens",
    actions: TOKEN_ACTIONS,
    request: TokensRequest,
    maxBodyBytes: 4096,
    policy: "tokens",
    limitBy: "caller",
    requires: "session",
    noStore: true,
  }),
});
