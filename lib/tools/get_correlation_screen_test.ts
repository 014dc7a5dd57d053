/**
 * `get_correlation` replays a screened pair's q (issue #20 "One family per screen"): given the
 * find_correlations arguments that found a pair, it reports the pair's Benjamini–Yekutieli q and
 * family size exactly as the screen did; without them it says its p is a single test's.
 */

import assert from "node:assert/strict";
import { AppError } from "../foundation/errors.ts";
import { assertValidResult } from "../analytics/_test_record.ts";
import { realLogMember } from "../analytics/_real_log_members.ts";
import type { ToolDefinition } from "./define_tool.ts";
import { findCorrelations } from "./find_correlations.ts";
import { getCorrelation } from "./get_correlation.ts";

// a real-log member (AR(1) 0.5, 20 % missing days, own weekday rhythms and trends) where x
// leads y by a day
const { record } = realLogMember({ seed: 7, days: 180, link: { r: 0.6, lag: 1 } });

// deno-lint-ignore no-explicit-any
function call<T extends ToolDefinition<any, any>>(tool: T, args: Record<string, unknown>): any {
  const result = tool.run(record, tool.input.parse(args));
  assertValidResult(tool as unknown as ToolDefinition, result);
  return result;
}

function refused(args: Record<string, unknown>, message: RegExp) {
  assert.throws(
    () => call(getCorrelation, args),
    (e: unknown) =>
      e instanceof AppError && e.code === "invalid_request" && message.test(e.message),
  );
}

Deno.test("get_correlation() with screen replays a whole-record screen's q and family size", () => {
  const screen = call(findCorrelations, {});
  const hit = screen.results.find((x: { other_metric: string; metric: string }) =>
    x.other_metric === "x" && x.metric === "y"
  );
  assert.ok(hit, "the planted x → y link is found");
  const replay = call(getCorrelation, {
    metric_a: hit.other_metric,
    metric_b: hit.metric,
    lag_days: hit.lag_days,
    days: 180,
    screen: "record",
  });
  assert.match(replay.caveat, new RegExp(`q ${hit.q_text}`));
  assert.equal(replay.q_value, hit.q_value);
  assert.equal(replay.p_text, hit.p_text);
  assert.equal(replay.r, hit.r);
  assert.equal(replay.confidence, hit.confidence);
  assert.equal(replay.family_size, screen.tests_run);
  assert.equal(replay.adjustments.multiple_testing, "benjamini_yekutieli");
  assert.equal(replay.adjustments.tests_run, screen.tests_run);
  assert.match(
    replay.caveat,
    new RegExp(`a whole-record screen of ${screen.tests_run} tests`),
  );
  // the same pair named from the other side (y follows x: x leads, lag −1 from y's side)
  const turned = call(getCorrelation, {
    metric_a: "y",
    metric_b: "x",
    lag_days: -1,
    days: 180,
    screen: "record",
  });
  assert.equal(turned.q_value, hit.q_value);
});

Deno.test("get_correlation() with screen replays a metric's own family and a null pair's q", () => {
  const own = call(findCorrelations, { metric: "y", family: "metric", top: 20 });
  const replay = call(getCorrelation, {
    metric_a: "x",
    metric_b: "y",
    lag_days: 1,
    days: 180,
    screen: "metric",
  });
  const hit = own.results.find((x: { other_metric: string }) => x.other_metric === "x");
  assert.equal(replay.q_value, hit.q_value);
  assert.equal(replay.family_size, own.tests_run);
  assert.match(replay.caveat, new RegExp(`y's own pairs of ${own.tests_run} tests`));
  // a pair no screen reports still gets its q within the family (here near 1)
  const quiet = call(getCorrelation, {
    metric_a: "c3",
    metric_b: "c4",
    days: 180,
    screen: "record",
  });
  assert.ok(quiet.q_value !== null && quiet.q_value > quiet.p_value);
});

Deno.test("get_correlation() without screen says its p is a single test's", () => {
  const r = call(getCorrelation, { metric_a: "x", metric_b: "y", lag_days: 1 });
  assert.equal(r.q_value, null);
  assert.equal(r.family_size, null);
  assert.match(r.caveat, /This p is a single test's/);
});

Deno.test("get_correlation() refuses a screen that does not test the pair", () => {
  refused({ metric_a: "x", metric_b: "y", lag_days: 2, screen: "record" }, /does not test x → y/);
  refused(
    { metric_a: "x", metric_b: "y", lag_days: 3, screen: "metric", screen_max_lag: 2 },
    /does not test x → y/,
  );
  refused({ metric_a: "x", metric_b: "y", method: "pearson", screen: "record" }, /Spearman/);
});
