/**
 * Route B with the official MCP SDK client's own OAuth flow, the consent screen approved in
 * headless Chromium: tools/call → 401 → protected-resource metadata → AS metadata → dynamic
 * registration → PKCE → the browser signs in and approves → code exchange → tools/call returns
 * the member's own data. Skipped, with a message, when /usr/bin/chromium is absent, except under
 * CI (tests/browser/_browser.ts).
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import {
  assertAxeClean,
  browserTest,
  collectScripts,
  gzipSize,
  JS_BUDGET_GZIP,
} from "./_browser.ts";
import { PASSWORD, seedMood, signUpMember } from "../http/_oauth.ts";

/** A client-side loopback callback server, as a desktop MCP client runs one (RFC 8252 §7.3). */
function startCallbackServer() {
  let resolveCode!: (u: URL) => void;
  const redirected = new Promise<URL>((r) => (resolveCode = r));
  const ac = new AbortController();
  let port!: number;
  const ready = new Promise<void>((r) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      signal: ac.signal,
      onListen: (a) => {
        port = a.port;
        r();
      },
    }, (req) => {
      resolveCode(new URL(req.url));
      return new Response("You can close this window.", {
        headers: { "Content-Type": "text/plain" },
      });
    });
    finished = server.finished;
  });
  let finished: Promise<void> = Promise.resolve();
  return {
    ready,
    get url() {
      return `http://127.0.0.1:${port}/callback`;
    },
    redirected,
    async close() {
      ac.abort();
      await finished;
    },
  };
}

browserTest(
  "MCP SDK OAuth flow: consent approved in headless Chromium, reads the member's data",
  async ({ base, browser }, t) => {
    const member = await signUpMember(base, "carol");
    await seedMood(base, member, 5);
    const callback = startCallbackServer();
    await callback.ready;

    const consoleErrors: string[] = [];
    const pagesSeen: string[] = [];
    try {
      const page = await browser.newPage();
      page.on("console", (m) => {
        if (m.type() === "error") consoleErrors.push(m.text());
      });
      // Browsers ask for /favicon.ico on their own; any other failed load is a defect.
      const failedLoads: string[] = [];
      page.on("response", (r) => {
        if (r.status() >= 400 && !r.url().endsWith("/favicon.ico")) {
          failedLoads.push(`${r.status()} ${r.url()}`);
        }
      });

      // The SDK's OAuthClientProvider: in-memory storage; "redirecting" drives the browser.
      let clientInformation: OAuthClientInformationMixed | undefined;
      let tokens: OAuthTokens | undefined;
      let verifier = "";
      let authorizationUrl: URL | null = null;
      const provider: OAuthClientProvider = {
        get redirectUrl() {
          return callback.url;
        },
        get clientMetadata(): OAuthClientMetadata {
          return {
            client_name: "MCP SDK browser test",
            redirect_uris: [callback.url],
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            token_endpoint_auth_method: "none",
          };
        },
        state: () => "sdk-state-" + crypto.randomUUID(),
        clientInformation: () => clientInformation,
        saveClientInformation: (info: OAuthClientInformationMixed) => {
          clientInformation = info;
        },
        tokens: () => tokens,
        saveTokens: (t: OAuthTokens) => {
          tokens = t;
        },
        redirectToAuthorization: (url: URL) => {
          authorizationUrl = url;
        },
        saveCodeVerifier: (v: string) => {
          verifier = v;
        },
        codeVerifier: () => verifier,
      };

      const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), {
        authProvider: provider,
      });
      const client = new Client({ name: "sdk-oauth-browser", version: "1.0.0" });
      await client.connect(transport);

      await t.step("tools/call without a token starts the SDK's OAuth flow", async () => {
        await assert.rejects(
          client.callTool({ name: "list_columns", arguments: {} }),
          UnauthorizedError,
        );
        assert.ok(authorizationUrl, "the SDK asked to open the authorization URL");
        const u = authorizationUrl as URL;
        assert.equal(u.origin + u.pathname, `${base}/api/oauth/authorize`);
        assert.equal(u.searchParams.get("code_challenge_method"), "S256");
        assert.equal(u.searchParams.get("resource"), `${base}/api/mcp`);
        assert.ok(clientInformation?.client_id, "the SDK registered dynamically");
      });

      let code = "";
      await t.step("the member signs in and approves the consent screen in Chromium", async () => {
        const scripts = collectScripts(page);
        await page.goto((authorizationUrl as unknown as URL).href);
        pagesSeen.push(await page.title());
        await assertAxeClean(page, "the OAuth sign-in screen");
        await page.fill('input[name="username"]', member.username);
        await page.fill('input[name="password"]', PASSWORD);
        await page.click('button[value="sign_in"]');
        // The island hydrated: the bundle from `deno bundle` loaded under the page's CSP.
        await page.waitForSelector('[data-island="ConsentForm"] form[data-hydrated="true"]');
        pagesSeen.push(await page.title());
        const js = await gzipSize(await scripts.stop());
        assert.ok(js > 0 && js <= JS_BUDGET_GZIP, `${js} B of JavaScript (gzip) with the island`);
        const text = await page.textContent("main");
        assert.match(text ?? "", /MCP SDK browser test/);
        assert.match(text ?? "", /127\.0\.0\.1/);
        assert.match(text ?? "", /Read-only/);
        await assertAxeClean(page, "the consent screen");
        await page.click('button[value="approve"]');
        const back = await callback.redirected;
        assert.equal(back.searchParams.get("iss"), base);
        code = back.searchParams.get("code") ?? "";
        assert.match(code, /^rt_ac_/);
      });

      await t.step(
        "the SDK exchanges the code and tools/call returns the member's data",
        async () => {
          await transport.finishAuth(code);
          assert.match(tokens?.access_token ?? "", /^rt_at_/);
          const result = await client.callTool({ name: "list_columns", arguments: {} });
          assert.equal(result.isError, false, JSON.stringify(result.content));
          const columns = (result.structuredContent as { columns: { key: string }[] }).columns;
          assert.deepEqual(columns.map((c) => c.key), ["mood"]);
          const entries = await client.callTool({ name: "get_entries", arguments: {} });
          assert.equal(entries.isError, false, JSON.stringify(entries.content));
          const rows = (entries.structuredContent as { rows: { date: string }[] }).rows;
          const day = rows.find((r) => r.date === "2026-11-20");
          assert.match(JSON.stringify(day), /5/, "carol's logged mood of 5 comes back");
        },
      );

      await t.step("the consent page ran its island under the CSP without errors", () => {
        assert.deepEqual(pagesSeen, [
          "Sign in to continue · Routine Tracker",
          "Allow access? · Routine Tracker",
        ]);
        assert.deepEqual(failedLoads, []);
        assert.deepEqual(
          consoleErrors.filter((e) => !/status of 404/.test(e) || failedLoads.length > 0),
          [],
        );
      });
      await client.close();
    } finally {
      await callback.close();
    }
  },
  { islands: true },
);
