/**
 * One family per screen over the wire (issue #20): the sandbox's find_correlations without
 * metric screens the whole record in one Benjamini–Yekutieli family, a per-metric call reports
 * the same q for the same pair, and get_correlation with screen replays that q and family size.
 */

import assert from "node:assert/strict";
import { jsonPost, makeApp, type TestApp } from "../_helpers.ts";

async function callTool(a: TestApp, name: string, args: Record<string, unknown>) {
  const res = await a.request(
    "/api/sandbox",
    jsonPost(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
      { Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" },
    ),
  );
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.ok(!body.result.isError, JSON.stringify(body.result.content));
  return body.result.structuredContent;
}

Deno.test("POST /api/sandbox: a whole-record find_correlations screen replays through a per-metric call and get_correlation's screen", async () => {
  await using a = await makeApp();
  const whole = await callTool(a, "find_correlations", {});
  assert.equal(whole.metric, null);
  assert.equal(whole.family, "record");
  assert.equal(whole.adjustments.multiple_testing, "benjamini_yekutieli");
  assert.match(whole.family_note, /get_correlation with screen "record", screen_max_lag 1/);
  assert.ok(whole.results.length > 0);
  const hit = whole.results[0];
  const mood = await callTool(a, "find_correlations", { metric: hit.metric });
  assert.equal(mood.tests_run, whole.tests_run);
  const same = mood.results.find((x: { other_metric: string; lag_days: number }) =>
    x.other_metric === hit.other_metric && x.lag_days === hit.lag_days
  );
  assert.equal(same.q_value, hit.q_value);
  const replay = await callTool(a, "get_correlation", {
    metric_a: hit.other_metric,
    metric_b: hit.metric,
    lag_days: hit.lag_days,
    days: 180,
    screen: "record",
  });
  assert.equal(replay.q_value, hit.q_value);
  assert.equal(replay.family_size, whole.tests_run);
  assert.equal(replay.confidence, hit.confidence);
  const single = await callTool(a, "get_correlation", {
    metric_a: hit.other_metric,
    metric_b: hit.metric,
    lag_days: hit.lag_days,
  });
  assert.equal(single.q_value, null);
  assert.match(single.caveat, /This p is a single test's/);
});
