/**
 * The official MCP TypeScript SDK client is the judge: it connects over Streamable HTTP, lists
 * the tools, calls all eighteen, and every structuredContent is validated against its tool's
 * outputSchema with ajv (JSON Schema 2020-12).
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { startServer } from "../_helpers.ts";

/** Valid arguments for every tool on the synthetic member. */
export const SANDBOX_CALLS: Record<string, Record<string, unknown>[]> = {
  list_columns: [{}],
  get_overview: [{}, { period: "week" }],
  get_entries: [{}, { metrics: ["mood", "sleep_hours"], limit: 7, order: "asc" }],
  get_aggregates: [{ metric: "steps" }, { metric: "workout", bucket: "month" }],
  get_summary_stats: [{ metric: "sleep_hours" }, { metric: "mood", days: 90 }],
  get_streak: [{ metric: "meditation_min" }, { metric: "workout" }, { metric: "weight_kg" }],
  get_habit_strength: [{ metric: "medication_taken" }, { metric: "water_l", include_series: true }],
  get_goal_progress: [{}, { metric: "workout", period: "week" }],
  get_personal_bests: [{ metric: "steps" }],
  get_trend: [{ metric: "sleep_hours", days: 28 }, { metric: "weight_kg" }],
  compare_periods: [{ metric: "steps", a_start: "2026-02-15", a_end: "2026-03-15" }],
  get_weekday_pattern: [{ metric: "mood" }],
  get_correlation: [
    { metric_a: "sleep_hours", metric_b: "mood" },
    { metric_a: "workout", metric_b: "mood", lag_days: 1, detrend: "weekday" },
    { metric_a: "weight_kg", metric_b: "meditation_min", days: 14 },
    { metric_a: "sleep_hours", metric_b: "mood", days: 180, screen: "record" },
  ],
  find_correlations: [{ metric: "mood" }, {}, { metric: "mood", family: "metric", max_lag: 2 }],
  get_factor_effect: [{ factor: "workout", outcome: "mood", lag_days: 1 }],
  get_anomalies: [{}, { metric: "resting_hr" }],
  get_data_coverage: [{}, { days: 90 }],
  get_coach_insights: [{}, { limit: 2 }],
};

Deno.test("MCP SDK: the MCP SDK client calls all eighteen sandbox tools and every result matches its outputSchema", async (t) => {
  await using server = await startServer();
  const client = new Client({ name: "sdk-judge", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/sandbox`));
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, "routine-tracker-sandbox");
    const { tools } = await client.listTools();
    assert.equal(tools.length, 18);
    assert.deepEqual(
      Object.keys(SANDBOX_CALLS).sort(),
      tools.map((tool: { name: string }) => tool.name).sort(),
    );

    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    for (const tool of tools) {
      const validate = ajv.compile(tool.outputSchema!);
      for (const args of SANDBOX_CALLS[tool.name]) {
        await t.step(`${tool.name} ${JSON.stringify(args)}`, async () => {
          const result = await client.callTool({ name: tool.name, arguments: args });
          assert.equal(result.isError, false, JSON.stringify(result.content));
          const ok = validate(result.structuredContent);
          assert.ok(ok, `${tool.name}: ${ajv.errorsText(validate.errors)}`);
          const text = (result.content as { type: string; text: string }[])[0].text;
          assert.deepEqual(JSON.parse(text), result.structuredContent);
          assert.equal(
            (result._meta as Record<string, unknown>)["routine-tracker/synthetic"],
            true,
          );
        });
      }
    }

    await t.step("invalid arguments come back as isError results the model can read", async () => {
      const result = await client.callTool({
        name: "get_correlation",
        arguments: { metric_a: "mood", metric_b: "sleep_hours", lag_days: 30 },
      });
      assert.equal(result.isError, true);
      const text = (result.content as { type: string; text: string }[])[0].text;
      assert.equal(JSON.parse(text).error.code, "invalid_request");
    });
    await t.step("an unknown tool is a protocol error (-32602)", async () => {
      await assert.rejects(
        () => client.callTool({ name: "no_such_tool", arguments: {} }),
        (err: { code?: number }) => err.code === -32602,
      );
    });
  } finally {
    await client.close();
  }
});
