/** `POST /api/proxy`: the web app's data API, dispatching on `action` (DESIGN §8). */

import { PROXY_ENDPOINT } from "../../lib/actions/endpoints.ts";
import { actionEndpoint } from "../../lib/http/kernel/action_endpoint.ts";
import { define } from "../../lib/http/kernel/define.ts";

export const handler = define.handlers({ POST: actionEndpoint(PROXY_ENDPOINT) });
