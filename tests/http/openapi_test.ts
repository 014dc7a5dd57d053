/**
 * The OpenAPI description over real HTTP (DESIGN §11): served at both paths with its media type
 * and a strong ETag, valid OpenAPI 3.1 (the OpenAPI schema, then Redocly's recommended ruleset),
 * exactly fifteen operations, and the extension blocks generated from the code's registries.
 */

import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { startServer } from "../_helpers.ts";
import { API_VERSION, SERVICE_VERSION } from "../../lib/foundation/config.ts";
import { MIN_DAYS_SUNSET_NOTICE, MIN_DAYS_TO_SUNSET_NOTICE } from "../../lib/policy/deprecation.ts";
import { RATE_LIMIT_POLICIES } from "../../lib/policy/rate_limit.ts";
import { TOOLS } from "../../lib/tools/registry.ts";

/** Pinned so a lint run is reproducible; bump deliberately. */
const REDOCLY_CLI = "npm:@redocly/cli@2.77.0";

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** The fifteen operations of DESIGN §11. */
const EXPECTED_OPERATIONS = [
  "POST /api/mcp",
  "POST /api/sandbox",
  "POST /api/proxy",
  "POST /api/auth",
  "POST /api/tokens",
  "POST /api/oauth/register",
  "GET /api/oauth/authorize",
  "POST /api/oauth/token",
  "GET /openapi.json",
  "GET /.well-known/api-catalog",
  "GET /.well-known/mcp.json",
  "GET /.well-known/oauth-protected-resource",
  "GET /.well-known/oauth-authorization-server",
  "GET /llms.txt",
  "GET /llms-full.txt",
].sort();

// deno-lint-ignore no-explicit-any
type Doc = any;

function operationsOf(doc: Doc): string[] {
  const ops: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Doc>)) {
    for (const method of HTTP_METHODS) {
      if (item[method]) ops.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return ops.sort();
}

Deno.test("GET /openapi.json", async (t) => {
  await using server = await startServer();
  const res = await fetch(`${server.url}/openapi.json`);
  const text = await res.text();
  const doc: Doc = JSON.parse(text);

  await t.step("answers 200 application/openapi+json with a strong ETag, no credential", () => {
    assert.deepEqual(res.status, 200);
    assert.deepEqual(res.headers.get("content-type"), "application/openapi+json");
    assert.match(res.headers.get("etag") ?? "", /^"[A-Za-z0-9_-]+"$/);
    assert.deepEqual(res.headers.get("api-version"), API_VERSION);
  });

  await t.step("answers 304 to a matching If-None-Match", async () => {
    const again = await fetch(`${server.url}/openapi.json`, {
      headers: { "If-None-Match": res.headers.get("etag")! },
    });
    assert.deepEqual(again.status, 304);
    assert.deepEqual(await again.text(), "");
  });

  await t.step("/.well-known/openapi.json serves the same document", async () => {
    const alt = await fetch(`${server.url}/.well-known/openapi.json`);
    assert.deepEqual(alt.status, 200);
    assert.deepEqual(alt.headers.get("content-type"), "application/openapi+json");
    assert.deepEqual(alt.headers.get("etag"), res.headers.get("etag"));
    assert.deepEqual(await alt.text(), text);
  });

  await t.step("validates against the OpenAPI 3.1 schema", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
    assert.deepEqual(validator.version, "3.1");
  });

  await t.step("has exactly the fifteen operations of DESIGN §11", () => {
    assert.deepEqual(operationsOf(doc), EXPECTED_OPERATIONS);
  });

  await t.step("names the configured base URL, the service version and Api-Version", () => {
    assert.deepEqual(doc.servers, [{ url: server.url, description: doc.servers[0].description }]);
    assert.deepEqual(doc.info.version, SERVICE_VERSION);
    assert.deepEqual(doc.info["x-api-version"], API_VERSION);
    assert.deepEqual(doc.components.headers["Api-Version"].schema.const, API_VERSION);
  });

  await t.step(
    "every operation has typed JSON bodies: no empty schema for a documented body",
    () => {
      const resolve = (s: Doc): Doc =>
        s?.$ref ? resolve(doc.components.schemas[s.$ref.split("/").pop()]) : s;
      for (const [path, item] of Object.entries(doc.paths as Record<string, Doc>)) {
        for (const method of HTTP_METHODS) {
          const op = item[method];
          if (!op) continue;
          const bodies = [
            ...Object.values(op.requestBody?.content ?? {}),
            ...Object.values(op.responses as Record<string, Doc>).flatMap((r) => {
              const resolved = r.$ref ? doc.components.responses[r.$ref.split("/").pop()] : r;
              return Object.values(resolved.content ?? {});
            }),
          ] as Doc[];
          for (const body of bodies) {
            const schema = resolve(body.schema);
            assert.ok(
              schema && Object.keys(schema).length > 0,
              `${method} ${path}: a body without a schema`,
            );
          }
        }
      }
    },
  );

  await t.step("security schemes: API token, session, OAuth 2 with PKCE", () => {
    const schemes = doc.components.securitySchemes;
    assert.deepEqual(schemes.apiToken.scheme, "bearer");
    assert.deepEqual(schemes.apiToken.bearerFormat, "rt_ro_…");
    assert.deepEqual(schemes.session.scheme, "bearer");
    const flow = schemes.oauth2.flows.authorizationCode;
    assert.deepEqual(flow.authorizationUrl, `${server.url}/api/oauth/authorize`);
    assert.deepEqual(flow.tokenUrl, `${server.url}/api/oauth/token`);
    assert.deepEqual(Object.keys(flow.scopes), ["read"]);
    assert.deepEqual(flow["x-code-challenge-methods"], ["S256"]);
  });

  await t.step("each tool's input and output schema is a component", () => {
    for (const tool of TOOLS) {
      assert.ok(doc.components.schemas[`Tool_${tool.name}_Input`], tool.name);
      assert.ok(doc.components.schemas[`Tool_${tool.name}_Output`], tool.name);
    }
    assert.deepEqual(doc.components.schemas.Tool_get_streak_Input.required, ["metric"]);
  });

  await t.step("x-access-terms: credential steps without a human, and delegated access", () => {
    const terms = doc["x-access-terms"];
    assert.deepEqual(terms.credentialSteps.length, 3);
    for (const step of terms.credentialSteps) assert.deepEqual(step.humanInvolved, false);
    assert.deepEqual(terms.delegatedAccess.codeChallengeMethods, ["S256"]);
  });

  await t.step("x-ratelimit-policies is the complete table of lib/policy/rate_limit.ts", () => {
    const table = doc["x-ratelimit-policies"];
    assert.deepEqual(
      table.map((p: Doc) => [p.name, p.quota, p.windowSeconds]),
      Object.values(RATE_LIMIT_POLICIES).map((p) => [p.name, p.q, p.w]),
    );
    assert.deepEqual(table.find((p: Doc) => p.name === "mcp").header, '"mcp";q=120;w=60');
  });

  await t.step("x-deprecation-policy: 90/180 days, header formats, 410, empty registry", () => {
    const policy = doc["x-deprecation-policy"];
    assert.deepEqual(policy.minDaysFromDeprecationToSunsetNotice, MIN_DAYS_TO_SUNSET_NOTICE);
    assert.deepEqual(policy.minDaysFromSunsetNoticeToSunset, MIN_DAYS_SUNSET_NOTICE);
    assert.deepEqual([MIN_DAYS_TO_SUNSET_NOTICE, MIN_DAYS_SUNSET_NOTICE], [90, 180]);
    assert.deepEqual(policy.retiredStatus, 410);
    assert.match(policy.headers.deprecation, /^Deprecation: @<epoch seconds>/);
    assert.match(policy.headers.sunset, /^Sunset: <HTTP-date>/);
    assert.deepEqual(policy.deprecated, []);
  });

  await t.step("x-cli: not on a registry; tarball URL and install command", () => {
    const cli = doc["x-cli"];
    assert.deepEqual(cli.registryPublished, false);
    assert.deepEqual(cli.tarballUrl, `${server.url}/cli/routine-tracker-cli.tgz`);
    assert.deepEqual(cli.install, `npm install -g ${server.url}/cli/routine-tracker-cli.tgz`);
  });

  await t.step("lints clean with Redocly's recommended ruleset", async () => {
    const file = await Deno.makeTempFile({ suffix: ".json" });
    try {
      await Deno.writeTextFile(file, text);
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", REDOCLY_CLI, "lint", "--extends=recommended", "--format=json", file],
        env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      const report = JSON.parse(stdout.slice(stdout.indexOf("{")));
      const problems = report.problems.map((p: Doc) =>
        `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`
      );
      assert.deepEqual(out.code, 0, new TextDecoder().decode(out.stderr) + problems.join("\n"));
      assert.deepEqual(report.totals.errors, 0, problems.join("\n"));
      assert.deepEqual(report.totals.warnings, 0, problems.join("\n"));
    } finally {
      await Deno.remove(file);
    }
  });
});
