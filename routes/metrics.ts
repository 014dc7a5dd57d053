/**
 * `GET /metrics`: this process's counters in the Prometheus text exposition format (0.0.4). Off
 * (404) unless `METRICS_TOKEN` is set; then only for `Authorization: Bearer <METRICS_TOKEN>`.
 */

import { define } from "../lib/http/kernel/define.ts";
import { requireOperator } from "../lib/http/kernel/auth.ts";
import { metrics } from "../lib/foundation/metrics.ts";

export const handler = define.handlers({
  GET(c) {
    requireOperator(c);
    return c.body(metrics.render(c.var.deps.config.version), 200, {
      "Content-Type": "text/plain; version=0.0.4; charset=utf-8",
      "Cache-Control": "no-store",
    });
  },
});
