/** `POST /api/tokens`: mint, list and revoke the caller's API tokens; sessions only (DESIGN §7). */

import { TOKENS_ENDPOINT } from "../../lib/actions/endpoints.ts";
import { actionEndpoint } from "../../lib/http/kernel/action_endpoint.ts";
import { define } from "../../lib/http/kernel/define.ts";

export const handler = define.handlers({ POST: actionEndpoint(TOKENS_ENDPOINT) });
