/** `POST /api/proxy`: the web app's data API, dispatching on `action` (DESIGN §8). */

import { z } from "zod";
import { AppError } from "../../lib/errors.ts";
import { checkHealth } from "../../lib/health.ts";
import { readJsonBody } from "../../lib/http/body.ts";
import { define } from "../../lib/http/define.ts";
import { enforceRateLimit } from "../../lib/http/rate_limit.ts";
import { bearerTokenOf } from "../../lib/http/auth.ts";

/** Actions of DESIGN §8 other than healthCheck; they need a member's bearer token. */
const MEMBER_ACTIONS = [
  "getProfile",
  "updateProfile",
  "listColumns",
  "createColumn",
  "updateColumn",
  "archiveColumn",
  "getEntries",
  "saveEntry",
  "skipDay",
  "deleteEntry",
  "callTool",
  "exportRecord",
  "importRecord",
  "listGrants",
  "revokeGrant",
] as const;

const ProxyRequest = z.object({ action: z.string().min(1) }).loose();

export const handler = define.handlers({
  async POST(c) {
    const body = ProxyRequest.parse(await readJsonBody(c));
    if (body.action === "healthCheck") {
      await enforceRateLimit(c, "proxy", `ip:${c.var.clientIp}`);
      const { kv, clock, config } = c.var.deps;
      const report = await checkHealth(kv, clock, config.version);
      return c.json(report, report.status === "healthy" ? 200 : 503);
    }
    if (!(MEMBER_ACTIONS as readonly string[]).includes(body.action)) {
      throw new AppError("unknown_action", `Unknown action "${body.action}".`, {
        details: { actions: ["healthCheck", ...MEMBER_ACTIONS] },
      });
    }
    await enforceRateLimit(c, "proxy", `ip:${c.var.clientIp}`);
    // Accounts arrive with issue #3: until then no bearer token is valid.
    throw bearerTokenOf(c) === null
      ? new AppError("unauthorized", `Action "${body.action}" needs Authorization: Bearer <token>.`)
      : new AppError("invalid_token", "The bearer token is not valid.");
  },
});
