import assert from "node:assert/strict";
import { jsonPost, makeApp } from "../_helpers.ts";

const LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const MODERN = "2026-07-28";
const MODERN_META = { "io.modelcontextprotocol/protocolVersion": MODERN };

function rpc(method: string, params?: unknown, id: unknown = 1) {
  return { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
}

async function post(
  a: { request: (p: string, i?: RequestInit) => Promise<Response> },
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const res = await a.request(
    path,
    jsonPost(body, { Accept: "application/json, text/event-stream", ...headers }),
  );
  const text = await res.text();
  return { res, body: text ? JSON.parse(text) : null };
}

for (const endpoint of ["/api/mcp", "/api/sandbox"]) {
  Deno.test(`POST ${endpoint}: lifecycle (MCP basic/lifecycle)`, async (t) => {
    await using a = await makeApp();
    for (const revision of LEGACY) {
      await t.step(`initialize echoes ${revision}`, async () => {
        const { res, body } = await post(
          a,
          endpoint,
          rpc("initialize", {
            protocolVersion: revision,
            capabilities: {},
            clientInfo: { name: "test", version: "1.0.0" },
          }),
        );
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /application\/json/);
        assert.equal(body.result.protocolVersion, revision);
        assert.deepEqual(body.result.capabilities, { tools: { listChanged: false }, logging: {} });
        assert.equal(typeof body.result.serverInfo.name, "string");
        assert.match(body.result.serverInfo.version, /^\d+\.\d+\.\d+/);
        assert.equal(typeof body.result.instructions, "string");
        assert.equal(res.headers.get("mcp-session-id"), null, "stateless: no session id");
      });
    }
    for (const requested of ["1999-01-01", "2.0", MODERN]) {
      await t.step(
        `initialize refuses ${requested} with -32602 and the supported list`,
        async () => {
          const { body } = await post(
            a,
            endpoint,
            rpc("initialize", {
              protocolVersion: requested,
              capabilities: {},
              clientInfo: { name: "test", version: "1.0.0" },
            }),
          );
          assert.equal(body.error.code, -32602);
          assert.equal(body.error.data.requested, requested);
          assert.deepEqual(body.error.data.supported, [MODERN, ...LEGACY]);
        },
      );
    }
    await t.step("notifications/initialized → 202 with no body", async () => {
      const res = await a.request(
        endpoint,
        jsonPost({ jsonrpc: "2.0", method: "notifications/initialized" }),
      );
      assert.equal(res.status, 202);
      assert.equal(await res.text(), "");
    });
    await t.step("ping → {}", async () => {
      const { body } = await post(a, endpoint, rpc("ping"), {
        "MCP-Protocol-Version": "2025-11-25",
      });
      assert.deepEqual(body.result, {});
    });
    await t.step("logging/setLevel → {}", async () => {
      const { body } = await post(a, endpoint, rpc("logging/setLevel", { level: "info" }), {
        "MCP-Protocol-Version": "2025-11-25",
      });
      assert.deepEqual(body.result, {});
    });
    await t.step(
      "an unsupported MCP-Protocol-Version header → 400 listing the supported revisions",
      async () => {
        const { res, body } = await post(a, endpoint, rpc("tools/list"), {
          "MCP-Protocol-Version": "2099-01-01",
        });
        assert.equal(res.status, 400);
        assert.deepEqual(body.error.data.supported, [MODERN, ...LEGACY]);
        assert.equal(body.error.data.requested, "2099-01-01");
      },
    );
  });

  Deno.test(`POST ${endpoint}: tools/list`, async () => {
    await using a = await makeApp();
    const { body } = await post(a, endpoint, rpc("tools/list"), {
      "MCP-Protocol-Version": "2025-11-25",
    });
    const tools = body.result.tools;
    assert.equal(tools.length, 18);
    assert.equal(new Set(tools.map((t: { name: string }) => t.name)).size, 18);
    for (const tool of tools) {
      assert.match(tool.name, /^[a-z_]+$/);
      assert.ok(tool.title && tool.description.length > 20, tool.name);
      assert.equal(tool.inputSchema.type, "object");
      assert.equal(tool.outputSchema.type, "object");
      assert.deepEqual(tool.annotations, {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
    const listColumns = tools.find((t: { name: string }) => t.name === "list_columns");
    assert.deepEqual(Object.keys(listColumns.inputSchema.properties ?? {}), []);
    const streak = tools.find((t: { name: string }) => t.name === "get_streak");
    assert.deepEqual(streak.inputSchema.required, ["metric"]);
    assert.deepEqual(Object.keys(streak.inputSchema.properties), ["metric"]);
  });

  Deno.test(`POST ${endpoint}: JSON-RPC and transport errors are never a 500`, async (t) => {
    await using a = await makeApp();
    await t.step("parse error → 400 -32700", async () => {
      const res = await a.request(endpoint, jsonPost("{not json"));
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.error.code, -32700);
      assert.equal(body.id, null);
    });
    for (
      const [name, payload] of [
        ["no jsonrpc field", { id: 1, method: "ping" }],
        ["wrong jsonrpc version", { jsonrpc: "1.0", id: 1, method: "ping" }],
        ["a batch", [rpc("ping"), rpc("ping", undefined, 2)]],
        ["a null id", { jsonrpc: "2.0", id: null, method: "ping" }],
        ["a method that is not a string", { jsonrpc: "2.0", id: 1, method: 5 }],
        ["a scalar body", 42],
      ] as [string, unknown][]
    ) {
      await t.step(`${name} → 400 -32600`, async () => {
        const { res, body } = await post(a, endpoint, payload);
        assert.equal(res.status, 400);
        assert.equal(body.error.code, -32600);
      });
    }
    await t.step("unknown method → -32601", async () => {
      const { body } = await post(a, endpoint, rpc("resources/list"));
      assert.equal(body.error.code, -32601);
      assert.equal(body.id, 1);
    });
    await t.step("params that are not an object → -32602", async () => {
      const { body } = await post(a, endpoint, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: [1],
      });
      assert.equal(body.error.code, -32602);
    });
    await t.step("oversized body → 413", async () => {
      const res = await a.request(endpoint, jsonPost(rpc("ping", { pad: "x".repeat(300_000) })));
      assert.equal(res.status, 413);
      assert.equal((await res.json()).error.code, -32600);
    });
    await t.step("non-JSON content type → 415", async () => {
      const res = await a.request(endpoint, {
        method: "POST",
        body: JSON.stringify(rpc("ping")),
        headers: { "Content-Type": "text/plain" },
      });
      assert.equal(res.status, 415);
      await res.body?.cancel();
    });
    await t.step("Accept without JSON → 406", async () => {
      const res = await a.request(endpoint, jsonPost(rpc("ping"), { Accept: "text/html" }));
      assert.equal(res.status, 406);
      await res.body?.cancel();
    });
    for (const method of ["GET", "DELETE"]) {
      await t.step(`${method} → 405 with Allow: POST`, async () => {
        const res = await a.request(endpoint, { method, headers: { Accept: "text/event-stream" } });
        assert.equal(res.status, 405);
        assert.equal(res.headers.get("allow"), "POST");
        await res.body?.cancel();
      });
    }
    await t.step("a JSON-RPC response posted by the client → 202", async () => {
      const res = await a.request(endpoint, jsonPost({ jsonrpc: "2.0", id: 9, result: {} }));
      assert.equal(res.status, 202);
      await res.body?.cancel();
    });
  });

  Deno.test(`POST ${endpoint}: DNS-rebinding protection (Host and Origin)`, async (t) => {
    await using a = await makeApp();
    const init = rpc("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    });
    await t.step("foreign Host and Origin → 403", async () => {
      const { res, body } = await post(a, endpoint, init, {
        Host: "evil.example.com",
        Origin: "http://evil.example.com",
      });
      assert.equal(res.status, 403);
      assert.equal(body.error.code, -32600);
    });
    await t.step("foreign Host alone → 403", async () => {
      const { res } = await post(a, endpoint, init, { Host: "evil.example.com:8000" });
      assert.equal(res.status, 403);
    });
    await t.step("foreign Origin alone → 403", async () => {
      const { res } = await post(a, endpoint, init, { Origin: "https://attacker.example" });
      assert.equal(res.status, 403);
    });
    await t.step("the service's own origin and loopback origins are fine", async () => {
      for (
        const origin of ["http://localhost:8000", "http://127.0.0.1:6274", "http://localhost:3000"]
      ) {
        const { res } = await post(a, endpoint, init, { Host: "localhost:8000", Origin: origin });
        assert.equal(res.status, 200, origin);
      }
    });
  });

  Deno.test(`POST ${endpoint}: the 2026-07-28 per-request form`, async (t) => {
    await using a = await makeApp();
    const h = (method: string, name?: string): Record<string, string> => ({
      "MCP-Protocol-Version": MODERN,
      "Mcp-Method": method,
      ...(name ? { "Mcp-Name": name } : {}),
    });
    await t.step("server/discover", async () => {
      const { res, body } = await post(
        a,
        endpoint,
        rpc("server/discover", { _meta: MODERN_META }),
        h("server/discover"),
      );
      assert.equal(res.status, 200);
      assert.equal(body.result.resultType, "complete");
      assert.deepEqual(body.result.supportedVersions, [MODERN, ...LEGACY]);
      assert.equal(typeof body.result._meta["io.modelcontextprotocol/serverInfo"].name, "string");
      assert.ok(body.result.ttlMs > 0);
    });
    await t.step("tools/list carries caching hints", async () => {
      const { body } = await post(
        a,
        endpoint,
        rpc("tools/list", { _meta: MODERN_META }),
        h("tools/list"),
      );
      assert.equal(body.result.tools.length, 18);
      assert.equal(body.result.resultType, "complete");
      assert.ok(body.result.ttlMs > 0);
      assert.ok(["public", "private"].includes(body.result.cacheScope));
    });
    await t.step("an unsupported revision → 400 -32022 with supported/requested", async () => {
      const { res, body } = await post(
        a,
        endpoint,
        rpc("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "1900-01-01" } }),
        { "Mcp-Method": "tools/list" },
      );
      assert.equal(res.status, 400);
      assert.equal(body.error.code, -32022);
      assert.equal(body.error.data.requested, "1900-01-01");
      assert.deepEqual(body.error.data.supported, [MODERN, ...LEGACY]);
    });
    await t.step("headers that disagree with the body → 400 -32020", async () => {
      const wrongMethod = await post(
        a,
        endpoint,
        rpc("tools/list", { _meta: MODERN_META }),
        h("tools/call"),
      );
      assert.equal(wrongMethod.res.status, 400);
      assert.equal(wrongMethod.body.error.code, -32020);
      const wrongVersion = await post(a, endpoint, rpc("tools/list", { _meta: MODERN_META }), {
        ...h("tools/list"),
        "MCP-Protocol-Version": "2025-11-25",
      });
      assert.equal(wrongVersion.body.error.code, -32020);
      if (endpoint === "/api/sandbox") {
        // On /api/mcp a tools/call is authenticated before anything else is looked at.
        const wrongName = await post(
          a,
          endpoint,
          rpc("tools/call", { name: "list_columns", arguments: {}, _meta: MODERN_META }),
          h("tools/call", "get_streak"),
        );
        assert.equal(wrongName.body.error.code, -32020);
      }
    });
    await t.step("unknown method → 404 -32601", async () => {
      const { res, body } = await post(
        a,
        endpoint,
        rpc("initialize", { _meta: MODERN_META }),
        h("initialize"),
      );
      assert.equal(res.status, 404);
      assert.equal(body.error.code, -32601);
    });
  });
}

Deno.test("POST /api/mcp tools/call needs a bearer token (spec Route B step 1)", async (t) => {
  await using a = await makeApp();
  const call = rpc("tools/call", { name: "list_columns", arguments: {} });
  await t.step("no token → 401 with the exact challenge", async () => {
    const { res, body } = await post(a, "/api/mcp", call, { "MCP-Protocol-Version": "2025-11-25" });
    assert.equal(res.status, 401);
    assert.equal(
      res.headers.get("www-authenticate"),
      'Bearer realm="routine-tracker-mcp", resource_metadata="http://localhost:8000/.well-known/oauth-protected-resource/api/mcp", scope="read"',
    );
    assert.equal(body.id, 1);
    assert.equal(body.error.data.code, "unauthorized");
  });
  await t.step('a bad token → 401 with error="invalid_token"', async () => {
    const { res } = await post(a, "/api/mcp", call, { Authorization: "Bearer rt_ro_nonsense" });
    assert.equal(res.status, 401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    assert.match(challenge, /^Bearer realm="routine-tracker-mcp", resource_metadata="[^"]+"/);
    assert.match(challenge, /error="invalid_token"/);
  });
  await t.step("the v1 alias points at its own path-inserted metadata", async () => {
    const { res } = await post(a, "/api/v1/mcp", call);
    assert.equal(res.status, 401);
    assert.match(
      res.headers.get("www-authenticate") ?? "",
      /resource_metadata="http:\/\/localhost:8000\/\.well-known\/oauth-protected-resource\/api\/v1\/mcp"/,
    );
  });
  await t.step("initialize and tools/list stay open", async () => {
    const { res } = await post(a, "/api/mcp", rpc("tools/list"));
    assert.equal(res.status, 200);
  });
});

Deno.test("POST /api/sandbox tools/call: results, markers and tool-level failures", async (t) => {
  await using a = await makeApp();
  const call = (name: string, args: unknown) =>
    post(a, "/api/sandbox", rpc("tools/call", { name, arguments: args }), {
      "MCP-Protocol-Version": "2025-11-25",
    });

  await t.step("structuredContent plus the same JSON as text, marked synthetic", async () => {
    const { res, body } = await call("get_streak", { metric: "meditation_min" });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-data-synthetic"), "true");
    const result = body.result;
    assert.equal(result.isError, false);
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    assert.equal(result._meta["routine-tracker/synthetic"], true);
    assert.equal(result.structuredContent.metric, "meditation_min");
  });
  await t.step("sent in ASCII: other characters as \\u escapes, the same value", async () => {
    const args = { name: "get_streak", arguments: { metric: "meditation_min" } };
    for (let i = 0; i < 2; i++) { // computed, then from the result cache
      const res = await a.request(
        "/api/sandbox",
        jsonPost(rpc("tools/call", args), { Accept: "application/json" }),
      );
      const text = await res.text();
      assert.match(text, /^[\x20-\x7e]*$/);
      const result = JSON.parse(text).result;
      assert.match(JSON.stringify(result.structuredContent), /[\u0080-\uffff]/, "has non-ASCII");
      assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    }
  });
  await t.step(
    "the same call twice answers identically (frozen clock, deterministic data)",
    async () => {
      const first = await call("get_correlation", { metric_a: "sleep_hours", metric_b: "mood" });
      const second = await call("get_correlation", { metric_a: "sleep_hours", metric_b: "mood" });
      assert.deepEqual(first.body.result, second.body.result);
    },
  );
  await t.step("unknown metric → isError with did_you_mean", async () => {
    const { body } = await call("get_streak", { metric: "meditation" });
    assert.equal(body.result.isError, true);
    const payload = JSON.parse(body.result.content[0].text);
    assert.equal(payload.error.code, "unknown_metric");
    assert.ok(payload.error.did_you_mean.includes("meditation_min"));
    assert.equal(body.result._meta["routine-tracker/synthetic"], true);
  });
  await t.step("range too large → isError range_too_large", async () => {
    const { body } = await call("get_summary_stats", {
      metric: "steps",
      start: "2024-01-01",
      end: "2026-03-18",
    });
    assert.equal(body.result.isError, true);
    assert.equal(JSON.parse(body.result.content[0].text).error.code, "range_too_large");
  });
  await t.step("arguments failing the input schema → isError invalid_request", async () => {
    for (const args of [{}, { metric: 5 }, { metric: "mood", extra: true }]) {
      const { body } = await call("get_streak", args);
      assert.equal(body.result.isError, true, JSON.stringify(args));
      assert.equal(JSON.parse(body.result.content[0].text).error.code, "invalid_request");
    }
  });
  await t.step("unknown tool → -32602 with data.synthetic", async () => {
    const { body } = await call("drop_tables", {});
    assert.equal(body.error.code, -32602);
    assert.equal(body.error.data.synthetic, true);
  });
  await t.step("arguments that are not an object → -32602", async () => {
    const { body } = await call("get_streak", ["mood"]);
    assert.equal(body.error.code, -32602);
  });
  await t.step("the 2026-07-28 form answers resultType complete", async () => {
    const { body } = await post(
      a,
      "/api/sandbox",
      rpc("tools/call", { name: "list_columns", arguments: {}, _meta: MODERN_META }),
      { "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "list_columns" },
    );
    assert.equal(body.result.resultType, "complete");
    assert.equal(body.result.structuredContent.columns.length, 9);
  });
});
