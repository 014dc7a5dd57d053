/**
 * The MCP conformance suite (npm:@modelcontextprotocol/conformance@0.1.16, run with Deno since
 * this machine's Node is 20) against the running server. dns-rebinding-protection only works on a
 * loopback URL (spec-anchors C6), which is what the test server listens on.
 */

import assert from "node:assert/strict";
import { startServer } from "../_helpers.ts";

const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "logging-set-level",
  "dns-rebinding-protection",
];

Deno.test("MCP conformance 0.1.16: server scenarios pass on /api/mcp and /api/sandbox", async (t) => {
  await using server = await startServer({ config: { rateLimitMultiplier: 100 } });
  for (const endpoint of ["/api/mcp", "/api/sandbox"]) {
    for (const scenario of SCENARIOS) {
      await t.step(`${endpoint} ${scenario}`, async () => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            "npm:@modelcontextprotocol/conformance@0.1.16",
            "server",
            "--url",
            `${server.url}${endpoint}`,
            "--scenario",
            scenario,
          ],
          stdout: "piped",
          stderr: "piped",
          env: { NO_COLOR: "1" },
        }).output();
        const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
        assert.equal(out.code, 0, text);
        assert.doesNotMatch(text, /\bFAIL(ED)?\b/, text);
        assert.match(text, /pass/i, text);
      });
    }
  }
});
