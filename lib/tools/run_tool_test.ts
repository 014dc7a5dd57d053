import assert from "node:assert/strict";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { runTool, toolErrorText } from "./run_tool.ts";
import { TOOLS } from "./registry.ts";

Deno.test("runTool() returns the tool's structured result", () => {
  const outcome = runTool(syntheticMember(), "get_streak", { metric: "meditation_min" });
  assert.equal(outcome.kind, "result");
  if (outcome.kind === "result") assert.equal(outcome.structured.metric, "meditation_min");
});

Deno.test("runTool() reports bad arguments as a tool error with the zod issues", () => {
  const outcome = runTool(syntheticMember(), "get_streak", { metric: 7 });
  assert.equal(outcome.kind, "tool_error");
  if (outcome.kind !== "tool_error") return;
  assert.equal(outcome.error.code, "invalid_request");
  assert.match(outcome.error.message, /^Invalid arguments for get_streak: /);
  assert.deepEqual((outcome.error.details!.issues as { path: string }[])[0].path, "metric");
});

Deno.test("runTool() reports a tool-level failure as a tool error", () => {
  const outcome = runTool(syntheticMember(), "get_streak", { metric: "meditation" });
  assert.equal(outcome.kind, "tool_error");
  if (outcome.kind !== "tool_error") return;
  assert.equal(outcome.error.code, "unknown_metric");
  const text = JSON.parse(toolErrorText(outcome.error));
  assert.equal(text.error.code, "unknown_metric");
  assert.ok(text.error.did_you_mean.includes("meditation_min"));
});

Deno.test("runTool() names every tool when the name is unknown", () => {
  const outcome = runTool(syntheticMember(), "get_everything", {});
  assert.equal(outcome.kind, "unknown_tool");
  if (outcome.kind !== "unknown_tool") return;
  assert.equal(outcome.error.message, "Unknown tool: get_everything");
  assert.deepEqual(outcome.error.details!.tools, TOOLS.map((t) => t.name));
});
