/** `POST /api/proxy`: the web app's data API, dispatching on `action` (DESIGN §8). */

import { z } from "zod";
import { PROXY_ACTIONS } from "../../lib/actions/proxy_actions.ts";
import { actionEndpoint } from "../../lib/http/action_endpoint.ts";
import { define } from "../../lib/http/define.ts";

/** CSV imports are the largest payload; everything else is far smaller. */
const MAX_PROXY_BODY_BYTES = 1024 * 1024;

export const handler = define.handlers({
  POST: actionEndpoint({
    path: "/api/proxy",
    actions: PROXY_ACTIONS,
    request: z.object({ action: z.string().min(1).max(64) }).loose(),
    maxBodyBytes: MAX_PROXY_BODY_BYTES,
    policy: "proxy",
    limitBy: "caller",
  }),
});
