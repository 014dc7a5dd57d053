import assert from "node:assert/strict";
import { escapeLabel, Metrics } from "./metrics.ts";
import { parseExposition } from "../../tests/process/_exposition.ts";

Deno.test("Metrics.render() is a valid exposition with cumulative latency buckets", () => {
  const m = new Metrics();
  m.observeRequest("/api/mcp", "POST", 200, 0.003);
  m.observeRequest("/api/mcp", "POST", 200, 0.2);
  m.observeRequest("/api/mcp", "BREW", 429, 9);
  m.rateLimited("mcp");
  m.kvRetried("busy");
  m.kvFailed("busy");
  m.coachRun("completed");
  const families = parseExposition(m.render("1.2.3"));
  const requests = families.get("routine_tracker_http_requests_total")!.samples;
  assert.deepEqual(requests.map((s) => [s.labels.method, s.labels.status, s.value]), [
    ["POST", "200", 2],
    ["OTHER", "429", 1],
  ]);
  const buckets = families.get("routine_tracker_http_request_duration_seconds")!.samples
    .filter((s) => s.name.endsWith("_bucket"));
  assert.equal(buckets.find((b) => b.labels.le === "0.005")?.value, 1);
  assert.equal(buckets.find((b) => b.labels.le === "0.25")?.value, 2);
  assert.equal(buckets.find((b) => b.labels.le === "5")?.value, 2);
  assert.equal(buckets.find((b) => b.labels.le === "+Inf")?.value, 3);
  assert.equal(families.get("routine_tracker_rate_limit_rejections_total")!.samples[0].value, 1);
});

Deno.test("escapeLabel() escapes backslash, quote and newline", () => {
  assert.equal(escapeLabel('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
});
