/**
 * Route A end to end, as a program with no human step: register → mint a token → the official MCP
 * SDK client calls all eighteen tools on `/api/mcp` with the token and reads the member's own data,
 * written through `/api/proxy`. Every structuredContent is validated against its outputSchema.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { startServer } from "../_helpers.ts";
import { SANDBOX_CALLS } from "./mcp_sdk_test.ts";
import { post, proxy, registerWithToken, seedYear, toolCall } from "./_members.ts";

// The manual test clock starts at 2026-11-22 12:00 UTC; the member's year ends the day before.
const LAST_DAY = "2026-11-21";

Deno.test("Route A: the MCP SDK client calls all eighteen tools on the member's own record", async (t) => {
  await using server = await startServer();
  const alice = await registerWithToken(server.url, "alice");
  await seedYear(server.url, alice, LAST_DAY);
  await proxy(server.url, alice, {
    action: "saveEntry",
    date: "2026-11-22",
    values: { steps: 12345, mood: 5 },
    note: "today",
  });

  const client = new Client({ name: "route-a", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${alice.token}` } },
  });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, "routine-tracker");
    const { tools } = await client.listTools();
    assert.equal(tools.length, 18);
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    for (const tool of tools) {
      const validate = ajv.compile(tool.outputSchema!);
      for (const args of SANDBOX_CALLS[tool.name]) {
        await t.step(`${tool.name} ${JSON.stringify(args)}`, async () => {
          const result = await client.callTool({ name: tool.name, arguments: args });
          assert.equal(result.isError, false, JSON.stringify(result.content));
          assert.ok(
            validate(result.structuredContent),
            `${tool.name}: ${ajv.errorsText(validate.errors)}`,
          );
          // A real record carries no synthetic marker (DESIGN §9).
          assert.equal(
            (result._meta as Record<string, unknown> | undefined)?.["routine-tracker/synthetic"],
            undefined,
          );
        });
      }
    }

    await t.step("the tools read what /api/proxy wrote", async () => {
      const cols = await client.callTool({ name: "list_columns", arguments: {} });
      const listed =
        (cols.structuredContent as { columns: { key: string; days_logged: number }[] }).columns;
      assert.deepEqual(listed.map((c) => c.key).sort(), [
        "medication_taken",
        "meditation_min",
        "mood",
        "resting_hr",
        "sleep_hours",
        "steps",
        "water_l",
        "weight_kg",
        "workout",
      ]);
      assert.equal(listed.find((c) => c.key === "steps")!.days_logged, 366);
      const entries = await client.callTool({
        name: "get_entries",
        arguments: { metrics: ["steps"], limit: 1, order: "desc" },
      });
      assert.match(JSON.stringify(entries.structuredContent), /12345/);
      assert.equal((entries.structuredContent as { timezone: string }).timezone, "UTC");
    });

    await t.step(
      "a write through /api/proxy is visible on the very next call (record cache keyed by version)",
      async () => {
        await proxy(server.url, alice, {
          action: "saveEntry",
          date: "2026-11-22",
          values: { steps: 23456 },
        });
        const entries = await client.callTool({
          name: "get_entries",
          arguments: { metrics: ["steps"], limit: 1, order: "desc" },
        });
        assert.match(JSON.stringify(entries.structuredContent), /23456/);
      },
    );

    await t.step("callTool on /api/proxy returns the same result as MCP", async () => {
      const viaMcp = await client.callTool({ name: "get_streak", arguments: { metric: "steps" } });
      const viaProxy = await proxy(server.url, alice, {
        action: "callTool",
        name: "get_streak",
        arguments: { metric: "steps" },
      });
      assert.deepEqual(viaProxy.structuredContent, viaMcp.structuredContent);
    });
  } finally {
    await client.close();
  }
});

Deno.test("isolation: member B's token never reads member A's data, through any tool or action", async () => {
  await using server = await startServer();
  const a = await registerWithToken(server.url, "member-a");
  const b = await registerWithToken(server.url, "member-b");
  await proxy(server.url, a, {
    action: "createColumn",
    key: "alpha_secret",
    label: "Alpha secret",
    type: "number",
  });
  await proxy(server.url, a, {
    action: "saveEntry",
    date: "2026-11-20",
    values: { alpha_secret: 987654.321 },
    note: "alpha note",
  });
  await proxy(server.url, b, { action: "createColumn", key: "mood", label: "Mood", type: "scale" });
  await proxy(server.url, b, { action: "saveEntry", date: "2026-11-20", values: { mood: 3 } });
  // A's values, note and label; B's own requests may echo the metric name B asked for.
  const leaks = (text: string) => /987654|alpha note|Alpha secret/.test(text);

  for (const [name, calls] of Object.entries(SANDBOX_CALLS)) {
    for (
      const args of [...calls, { metric: "alpha_secret" }, {
        metric_a: "alpha_secret",
        metric_b: "mood",
      }]
    ) {
      const res = await post(server.url, "/api/mcp", toolCall(name, args), b.token);
      assert.equal(res.status, 200);
      assert.ok(!leaks(JSON.stringify(res.body)), `${name} leaked A's data to B`);
    }
  }
  for (
    const body of [
      { action: "getProfile" },
      { action: "listColumns" },
      { action: "getEntries", start: "2026-01-01", end: "2026-11-22" },
      { action: "exportRecord", format: "json" },
      { action: "exportRecord", format: "csv" },
      { action: "callTool", name: "get_entries", arguments: {} },
      { action: "callTool", name: "get_streak", arguments: { metric: "alpha_secret" } },
    ]
  ) {
    for (const credential of [b.token, b.sessionToken]) {
      const res = await post(server.url, "/api/proxy", body, credential);
      assert.ok(res.status === 200 || res.status === 400, JSON.stringify(res.body));
      assert.ok(!leaks(JSON.stringify(res.body)), `${body.action} leaked A's data to B`);
    }
  }
  const bColumns = await post(server.url, "/api/mcp", toolCall("list_columns"), b.token);
  assert.ok(!JSON.stringify(bColumns.body).includes("alpha_secret"));
  // A's own token still sees A's data (the assertion above is not vacuous).
  const own = await post(server.url, "/api/mcp", toolCall("get_entries", {}), a.token);
  assert.ok(leaks(JSON.stringify(own.body)));
});

Deno.test("revocation: a token revoked while a client loops calls is refused on the very next call", async (t) => {
  await using server = await startServer();
  const m = await registerWithToken(server.url, "looper");
  await proxy(server.url, m, {
    action: "createColumn",
    key: "steps",
    label: "Steps",
    type: "integer",
  });
  await proxy(server.url, m, { action: "saveEntry", date: "2026-11-21", values: { steps: 5 } });

  await t.step("same instance", async () => {
    let revokedAt = Infinity;
    const outcomes: { startedAt: number; status: number }[] = [];
    const loop = (async () => {
      for (let i = 0; i < 400; i++) {
        const startedAt = performance.now();
        const res = await post(
          server.url,
          "/api/mcp",
          toolCall("get_streak", { metric: "steps" }, i),
          m.token,
        );
        outcomes.push({ startedAt, status: res.status });
        if (res.status === 401) {
          assert.match(res.headers.get("www-authenticate")!, /error="invalid_token"/);
          if (outcomes.filter((o) => o.status === 401).length >= 3) break;
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 100));
    const revoked = await post(
      server.url,
      "/api/tokens",
      { action: "revoke", id: m.tokenId },
      m.sessionToken,
    );
    assert.equal(revoked.status, 200);
    revokedAt = performance.now();
    await loop;
    assert.ok(outcomes.some((o) => o.status === 200), "the loop ran before the revocation");
    const after = outcomes.filter((o) => o.startedAt > revokedAt);
    assert.ok(after.length > 0);
    assert.deepEqual(after.map((o) => o.status).filter((s) => s !== 401), []);
  });

  await t.step(
    "another instance on the same KV refuses it on the next call",
    async () => {
      server.clock.advance(180_000); // a fresh mcp quota window after the loop above
      const token = (await post(
        server.url,
        "/api/tokens",
        { action: "create", name: "two", scopes: ["read"] },
        m.sessionToken,
      )).body;
      await using other = await startServer({ kv: server.kv, clock: server.clock });
      for (let i = 0; i < 5; i++) {
        assert.equal(
          (await post(
            other.url,
            "/api/mcp",
            toolCall("get_streak", { metric: "steps" }),
            token.token as string,
          )).status,
          200,
        );
      }
      await post(server.url, "/api/tokens", { action: "revoke", id: token.id }, m.sessionToken);
      const next = await post(
        other.url,
        "/api/mcp",
        toolCall("get_streak", { metric: "steps" }),
        token.token as string,
      );
      assert.equal(next.status, 401);
    },
  );
});
