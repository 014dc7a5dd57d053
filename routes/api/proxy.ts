/** `POST /api/proxy`: the web app's data API, dispatching on `action` (DESIGN §8). */

import { z } from "zod";
import { checkHealth } from "../../lib/health.ts";
import { requireMember } from "../../lib/http/auth.ts";
import { readJsonBody } from "../../lib/http/body.ts";
import { define } from "../../lib/http/define.ts";
import { applyDeprecation } from "../../lib/http/deprecation.ts";
import { enforceRateLimit } from "../../lib/http/rate_limit.ts";
import { isOperator } from "../../lib/http/operator.ts";
import { runProxyAction } from "../../lib/proxy_actions.ts";

/** CSV imports are the largest payload; everything else is far smaller. */
const MAX_PROXY_BODY_BYTES = 1024 * 1024;

const ProxyRequest = z.object({ action: z.string().min(1).max(64) }).loose();

export const handler = define.handlers({
  async POST(c) {
    const body = ProxyRequest.parse(await readJsonBody(c, MAX_PROXY_BODY_BYTES));
    applyDeprecation(c, "action", `/api/proxy#${body.action}`);
    const { kv, clock, config, access } = c.var.deps;
    if (body.action === "healthCheck") {
      await enforceRateLimit(c, "proxy", `ip:${c.var.clientIp}`);
      const { report, checks } = await checkHealth(kv, clock, config.version);
      // The four spec fields for anyone; which dependency failed for the operator only.
      const body = isOperator(c) ? { ...report, checks } : report;
      return c.json(body, report.status === "healthy" ? 200 : 503);
    }
    const caller = await requireMember(c);
    await enforceRateLimit(c, "proxy", caller.memberId);
    const result = await runProxyAction(
      { kv, clock, access, version: config.version, baseUrl: config.baseUrl },
      caller,
      body,
    );
    return c.json(result as Record<string, unknown>);
  },
});
