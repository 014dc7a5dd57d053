/**
 * `tools/list` is what every agent loads into its context window (issue #13): its size is
 * bounded, and nothing an agent needs is lost — each tool's structuredContent validates against
 * its outline (ajv in strict mode, so a keyword the compaction mangled would fail to compile)
 * and against the complete schema /openapi.json publishes; the outline names every top-level
 * field a result has; and every meaning or vocabulary a schema no longer repeats is in the
 * server's instructions.
 */

import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { jsonPost, makeApp, type TestApp } from "../_helpers.ts";
import { SANDBOX_CALLS } from "./mcp_sdk_test.ts";
import {
  compactSchema,
  ENVELOPE_FIELDS,
  OCCASIONAL_FIELDS,
} from "../../lib/tools/compact_schema.ts";
import { jsonSchemaOf, TOOL_BY_NAME } from "../../lib/tools/registry.ts";
import { SHARED_ARGUMENTS, SHARED_VOCABULARIES } from "../../lib/tools/schemas.ts";

/**
 * A ratchet on the serialized `tools/list` response: 55 kB before issue #13, 36.6 kB after its
 * lossless compaction, 43.2 kB once issue #12 added the honest-statistics fields, 23.7 kB at most
 * with outlined result schemas and shared meanings said once. Issue #13's budget is 24 kB.
 */
const MAX_TOOLS_LIST_BYTES = 24_000;

/** The request headers and `params` of each protocol era (2026-07-28 adds per-request fields). */
const ERAS = {
  "2025-11-25": { headers: {}, meta: undefined },
  "2026-07-28": {
    headers: { "Mcp-Method": "tools/list" },
    meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
  },
} as const;

async function rpc(
  a: TestApp,
  { path, method, params, era = "2025-11-25" }: {
    path: string;
    method: string;
    params?: Record<string, unknown>;
    era?: keyof typeof ERAS;
  },
) {
  const { headers, meta } = ERAS[era];
  const res = await a.request(
    path,
    jsonPost(
      { jsonrpc: "2.0", id: 1, method, params: meta ? { ...params, _meta: meta } : params },
      {
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": era,
        ...headers,
      },
    ),
  );
  assert.equal(res.status, 200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { bytes: bytes.length, body: JSON.parse(new TextDecoder().decode(bytes)) };
}

for (const path of ["/api/mcp", "/api/sandbox"]) {
  Deno.test(`POST ${path}: tools/list stays within its size budget in both protocol eras`, async () => {
    await using a = await makeApp();
    for (const era of Object.keys(ERAS) as (keyof typeof ERAS)[]) {
      const { bytes, body } = await rpc(a, { path, method: "tools/list", era });
      assert.equal(body.result.tools.length, 18);
      assert.ok(bytes <= MAX_TOOLS_LIST_BYTES, `${era}: tools/list is ${bytes} bytes`);
    }
  });
}

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; enum?: unknown[] };

/** The sandbox's instructions, its tool list and its OpenAPI description. */
async function catalogue(a: TestApp) {
  const { body: list } = await rpc(a, { path: "/api/sandbox", method: "tools/list" });
  const { body: init } = await rpc(a, {
    path: "/api/sandbox",
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "test", version: "1.0.0" },
    },
  });
  const openapi = await (await a.request("/openapi.json")).json();
  const tools: { name: string; inputSchema: Schema; outputSchema: Schema }[] = list.result.tools;
  return { tools, instructions: init.result.instructions as string, openapi };
}

Deno.test("POST /api/sandbox: every result matches its outline and its complete OpenAPI schema", async (t) => {
  await using a = await makeApp();
  const { tools, instructions, openapi } = await catalogue(a);
  for (const field of ENVELOPE_FIELDS) assert.ok(instructions.includes(field), field);
  assert.ok(instructions.includes("Tool_<name>_Output"));

  const ajv = new Ajv2020({
    strict: true,
    allowUnionTypes: true,
    allErrors: true,
    validateFormats: false,
  });
  const full = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  for (const tool of tools) {
    assert.equal(tool.outputSchema.type, "object", tool.name);
    const validate = ajv.compile(tool.outputSchema);
    const validateFull = full.compile(openapi.components.schemas[`Tool_${tool.name}_Output`]);
    const listed = Object.keys(tool.outputSchema.properties ?? {});
    for (const args of SANDBOX_CALLS[tool.name]) {
      await t.step(`${tool.name} ${JSON.stringify(args)}`, async () => {
        const { body } = await rpc(a, {
          path: "/api/sandbox",
          method: "tools/call",
          params: { name: tool.name, arguments: args },
        });
        const content: Record<string, unknown> = body.result.structuredContent;
        assert.ok(validate(content), `${tool.name}: ${ajv.errorsText(validate.errors)}`);
        assert.ok(validateFull(content), `${tool.name}: ${full.errorsText(validateFull.errors)}`);
        // The outline names every top-level field the result has, and the result has every
        // listed field but the occasional ones; the envelope is in every result.
        const own = Object.keys(content).filter((k) => !ENVELOPE_FIELDS.includes(k));
        assert.deepEqual(own.filter((k) => !listed.includes(k)), [], tool.name);
        const missing = listed.filter((k) => !(k in content) && !(k in OCCASIONAL_FIELDS));
        assert.deepEqual(missing, [], tool.name);
        for (const field of ENVELOPE_FIELDS) assert.ok(field in content, `${tool.name}.${field}`);
      });
    }
  }
});

Deno.test("POST /api/sandbox: what tools/list leaves out of a schema, the instructions say", async (t) => {
  await using a = await makeApp();
  const { tools, instructions } = await catalogue(a);
  const vocabularies = Object.values(SHARED_VOCABULARIES).map((values) => values.join("|"));
  for (const v of vocabularies) assert.ok(instructions.includes(v), v);
  for (const name of Object.keys(OCCASIONAL_FIELDS)) assert.ok(instructions.includes(name), name);
  for (const tool of tools) {
    await t.step(tool.name, () => {
      const definition = TOOL_BY_NAME.get(tool.name)!;
      const fullInput = jsonSchemaOf(definition.input, "input") as Schema;
      const fullOutput = compactSchema(jsonSchemaOf(definition.output, "output"), true) as Schema;
      // "A tool refuses arguments its inputSchema does not list" (the instructions).
      assert.equal(fullInput.additionalProperties, false);
      // An argument's meaning left out is a shared one, named in the instructions.
      for (const [name, arg] of Object.entries(fullInput.properties ?? {})) {
        const listed = tool.inputSchema.properties![name];
        if (arg.description === undefined || listed.description !== undefined) continue;
        assert.ok(Object.values(SHARED_ARGUMENTS).includes(arg.description as never), name);
        assert.ok(instructions.includes(name), name);
      }
      // A field's vocabulary left out is the same-named argument's, or a shared one.
      for (const [name, field] of Object.entries(fullOutput.properties ?? {})) {
        const listed = tool.outputSchema.properties?.[name];
        if (!field.enum || !listed || listed.enum) continue;
        const values = field.enum.filter((v) => v !== null);
        const echoed = tool.inputSchema.properties?.[name]?.enum;
        assert.ok(
          (echoed && values.every((v) => echoed.includes(v))) ||
            vocabularies.includes(values.join("|")),
          `${tool.name}.${name}`,
        );
      }
      // Only the occasional fields are optional in the complete schema.
      const required = new Set(
        (fullOutput.required ?? Object.keys(fullOutput.properties!)) as string[],
      );
      const optional = Object.keys(fullOutput.properties!).filter((k) => !required.has(k));
      for (const name of optional) assert.ok(name in OCCASIONAL_FIELDS, `${tool.name}.${name}`);
    });
  }
});
