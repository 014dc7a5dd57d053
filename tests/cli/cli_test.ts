/**
 * The command-line client as a user gets it: `npm install -g` of the tarball a running server
 * serves, then each command run by Node against that server.
 */

import assert from "node:assert/strict";
import { SERVICE_VERSION } from "../../lib/foundation/config.ts";
import { orderedPages } from "../../lib/http/kernel/docs_response.ts";
import { TOOL_DESCRIPTORS } from "../../lib/tools/registry.ts";
import { startServer } from "../_helpers.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Run> {
  const out = await new Deno.Command(cmd, {
    args,
    env: { ...env, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return {
    code: out.code,
    stdout: decode(out.stdout),
    stderr: decode(out.stderr),
  };
}

Deno.test({
  name: "CLI: routine-tracker CLI installed with npm from the running service",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await using server = await startServer();
    const tmp = await Deno.makeTempDir({ prefix: "routine-tracker-cli-" });
    const bin = `${tmp}/prefix/bin/routine-tracker`;
    // A clean environment: the token variable must come only from the steps that set it.
    const env = { PATH: Deno.env.get("PATH") ?? "", HOME: tmp };
    const cli = (...args: string[]) => run(bin, args, env);

    try {
      await t.step(
        "npm install -g <base>/cli/routine-tracker-cli.tgz",
        async () => {
          const install = await run("npm", [
            "install",
            "-g",
            "--prefix",
            `${tmp}/prefix`,
            "--cache",
            `${tmp}/npm-cache`,
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
            `${server.url}/cli/routine-tracker-cli.tgz`,
          ], env);
          assert.equal(install.code, 0, install.stderr);
          const stat = await Deno.stat(bin);
          assert.ok(stat.isFile || stat.isSymlink);
        },
      );

      await t.step(
        "--version names the package version and the baked-in base URL",
        async () => {
          const r = await cli("--version");
          assert.equal(r.code, 0, r.stderr);
          assert.equal(
            r.stdout.trim(),
            `routine-tracker ${SERVICE_VERSION} (service ${server.url})`,
          );
        },
      );

      await t.step("--help everywhere", async () => {
        const top = await cli("--help");
        assert.equal(top.code, 0);
        for (const c of ["discover", "init", "tools", "call"]) {
          assert.match(top.stdout, new RegExp(c));
        }
        for (const c of ["discover", "init", "tools", "call"]) {
          const r = await cli(c, "--help");
          assert.equal(r.code, 0, c);
          assert.match(r.stdout, new RegExp(`Usage: routine-tracker ${c}`));
          assert.match(r.stdout, /--base-url URL/);
        }
      });

      await t.step("init: the MCP handshake against the sandbox", async () => {
        const r = await cli("init");
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /negotiated revision 2025-11-25/);
        assert.match(
          r.stdout,
          new RegExp(`routine-tracker-sandbox ${SERVICE_VERSION}`),
        );
        assert.match(r.stdout, /notifications\/initialized ← HTTP 202/);
      });

      await t.step(
        "tools: a table of every tool; --json the raw list",
        async () => {
          const table = await cli("tools");
          assert.equal(table.code, 0, table.stderr);
          for (const tool of TOOL_DESCRIPTORS) {
            assert.match(table.stdout, new RegExp(`^${tool.name} `, "m"));
          }
          assert.match(table.stdout, /18 tools at .*\/api\/sandbox/);
          const json = await cli("tools", "--json");
          assert.equal(json.code, 0);
          assert.deepEqual(
            JSON.parse(json.stdout).map((x: { name: string }) => x.name),
            TOOL_DESCRIPTORS.map((x) => x.name),
          );
        },
      );

      await t.step(
        "call: typed arguments, structuredContent printed as JSON",
        async () => {
          const streak = await cli(
            "call",
            "get_streak",
            "metric=meditation_min",
          );
          assert.equal(streak.code, 0, streak.stderr);
          const result = JSON.parse(streak.stdout);
          assert.equal(result.metric, "meditation_min");
          assert.equal(result.today, "2026-03-18");

          const typed = await cli(
            "call",
            "get_habit_strength",
            "metric=workout",
            "include_series=true",
            "days=14",
          );
          assert.equal(typed.code, 0, typed.stderr);
          assert.ok(JSON.parse(typed.stdout));

          const columns = await cli("call", "list_columns");
          assert.equal(columns.code, 0, columns.stderr);
          assert.ok(JSON.parse(columns.stdout));
        },
      );

      await t.step(
        "call: an unknown tool is refused with the closest names",
        async () => {
          const r = await cli("call", "get_strek", "metric=mood");
          assert.equal(r.code, 2);
          assert.match(
            r.stderr,
            /Unknown tool "get_strek"\. Did you mean: get_streak/,
          );
        },
      );

      await t.step("call: a bad argument says which and why", async () => {
        const notInteger = await cli(
          "call",
          "get_trend",
          "metric=mood",
          "days=abc",
        );
        assert.equal(notInteger.code, 2);
        assert.match(
          notInteger.stderr,
          /Bad argument days=abc: must be an integer/,
        );
        const unknownName = await cli("call", "get_streak", "metrc=mood");
        assert.equal(unknownName.code, 2);
        assert.match(
          unknownName.stderr,
          /has no argument "metrc"\. Did you mean metric\?/,
        );
        const missing = await cli("call", "get_streak");
        assert.equal(missing.code, 2);
        assert.match(
          missing.stderr,
          /Missing required argument for get_streak: metric/,
        );
        const notBoolean = await cli(
          "call",
          "get_habit_strength",
          "metric=workout",
          "include_series=maybe",
        );
        assert.equal(notBoolean.code, 2);
        assert.match(
          notBoolean.stderr,
          /include_series=maybe: must be true or false/,
        );
      });

      await t.step(
        "call with a bad token: 401, and how to get a token",
        async () => {
          const flag = await cli(
            "call",
            "list_columns",
            "--token",
            "rt_ro_not-a-real-token",
          );
          assert.equal(flag.code, 3);
          assert.match(flag.stderr, /HTTP 401/);
          assert.match(flag.stderr, /Get a read-scoped API token/);
          assert.match(
            flag.stderr,
            new RegExp(`POST ${server.url}/api/tokens`),
          );
          const fromEnv = await run(bin, ["call", "list_columns"], {
            ...env,
            ROUTINE_TRACKER_TOKEN: "rt_ro_not-a-real-token",
          });
          assert.equal(fromEnv.code, 3);
        },
      );

      await t.step(
        "discover: every developer document into --out",
        async () => {
          const out = `${tmp}/docs`;
          const r = await cli("discover", "--out", out);
          assert.equal(r.code, 0, r.stderr + r.stdout);
          for (
            const file of [
              "openapi.json",
              "api-catalog.json",
              "mcp.json",
              "oauth-protected-resource.json",
              "oauth-authorization-server.json",
              "llms.txt",
              "llms-full.txt",
            ]
          ) {
            assert.ok((await Deno.stat(`${out}/${file}`)).size > 0, file);
            assert.match(
              r.stdout,
              new RegExp(`saved\\s+${file.replace(".", "\\.")}`),
            );
          }
          for (const page of orderedPages(server.url)) {
            const saved = await Deno.readTextFile(
              `${out}/docs/${page.slug}.md`,
            );
            assert.equal(saved, page.markdown);
          }
          const index = JSON.parse(
            await Deno.readTextFile(`${out}/index.json`),
          );
          assert.equal(index.baseUrl, server.url);
          // Every document is published, so every one is required and saved.
          for (const doc of index.documents) assert.equal(doc.status, 200, doc.url);
          const openapi = JSON.parse(await Deno.readTextFile(`${out}/openapi.json`));
          assert.equal(openapi["x-cli"].registryPublished, false);
          assert.match(r.stdout, /Saved \d+ documents .* 0 failed/);
        },
      );

      await t.step("usage errors: unknown command and option", async () => {
        const command = await cli("discovr");
        assert.equal(command.code, 2);
        assert.match(
          command.stderr,
          /Unknown command "discovr"\. Did you mean discover\?/,
        );
        const option = await cli("tools", "--jsn");
        assert.equal(option.code, 2);
        assert.match(option.stderr, /Unknown option --jsn/);
      });

      await t.step("a 429 says how long to wait", async () => {
        // multiplier 0.01 leaves the sandbox quota at 1 request a minute.
        await using tiny = await startServer({
          config: { rateLimitMultiplier: 0.01 },
        });
        const first = await cli("tools", "--base-url", tiny.url);
        assert.equal(first.code, 0, first.stderr);
        const second = await cli("tools", "--base-url", tiny.url);
        assert.equal(second.code, 4);
        assert.match(
          second.stderr,
          /Rate limited \(HTTP 429, policy "sandbox";q=1;w=60\)\. Wait \d+ seconds? \(Retry-After\)/,
        );
      });

      await t.step("an unreachable service is a clear failure", async () => {
        const r = await cli("tools", "--base-url", "http://127.0.0.1:9");
        assert.equal(r.code, 1);
        assert.match(
          r.stderr,
          /Cannot reach http:\/\/127\.0\.0\.1:9\/api\/sandbox/,
        );
      });
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
