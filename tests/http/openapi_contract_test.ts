/**
 * Contract test: a valid request to each of the fifteen operations of the OpenAPI document (and to
 * each action of /api/proxy, /api/auth and /api/tokens), over real HTTP, with the answer's status
 * checked against the statuses the document lists and its body validated (ajv, JSON Schema
 * 2020-12) against the document's schema for that operation and status — and, for dispatched
 * actions and tools, against the per-action and per-tool component as well.
 */

import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { startServer } from "../_helpers.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { runCoach } from "../../lib/coach/run.ts";
import { setTier } from "../../lib/coach/tier.ts";
import { post, registerWithToken, type TestMember } from "./_members.ts";
import { authorizeUrl, codeFor, newPkce, signUpMember, tokenRequest } from "./_oauth.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;

const escape = (s: string) => s.replaceAll("~", "~0").replaceAll("/", "~1");

/** Validates bodies against pointers into the served document. */
class Contract {
  readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  constructor(readonly doc: Doc) {
    this.ajv.addSchema(doc, "openapi");
  }

  /** Asserts `body` validates against the schema at `pointer` (a JSON pointer into the doc). */
  validate(pointer: string, body: unknown, label: string): void {
    const validate = this.ajv.compile({ $ref: `openapi#${pointer}` });
    assert.ok(
      validate(body),
      `${label} does not match ${pointer}: ${this.ajv.errorsText(validate.errors)}\n` +
        JSON.stringify(body).slice(0, 600),
    );
  }

  /** True when `body` validates (for the negative checks). */
  accepts(pointer: string, body: unknown): boolean {
    return this.ajv.compile({ $ref: `openapi#${pointer}` })(body) as boolean;
  }

  /**
   * Asserts `status` is documented for the operation and returns the pointer of its body schema
   * for `contentType` (following a `$ref` into components.responses), or null when it has none.
   */
  responsePointer(method: string, path: string, status: number, contentType: string) {
    const op = this.doc.paths[path]?.[method];
    assert.ok(op, `${method.toUpperCase()} ${path} is not in the document`);
    const response = op.responses[String(status)];
    assert.ok(response, `${method.toUpperCase()} ${path}: status ${status} is not documented`);
    const base = response.$ref
      ? response.$ref.slice(1)
      : `/paths/${escape(path)}/${method}/responses/${status}`;
    const resolved = response.$ref
      ? this.doc.components.responses[response.$ref.split("/").pop()]
      : response;
    if (!resolved.content) return null;
    assert.ok(
      resolved.content[contentType],
      `${method.toUpperCase()} ${path} ${status}: no ${contentType} body documented`,
    );
    return `${base}/content/${escape(contentType)}/schema`;
  }

  /** Checks a request body against the operation's request schema. */
  checkRequest(path: string, body: unknown, contentType = "application/json"): void {
    this.validate(
      `/paths/${escape(path)}/post/requestBody/content/${escape(contentType)}/schema`,
      body,
      `request to ${path}`,
    );
  }

  /** Checks a response's status and JSON body against the document; returns the body. */
  async checkJson(method: string, path: string, res: Response): Promise<Doc> {
    const text = await res.text();
    const type = (res.headers.get("content-type") ?? "").split(";")[0].trim();
    const pointer = this.responsePointer(method, path, res.status, type);
    assert.ok(pointer, `${path} ${res.status}: a body was sent but none is documented`);
    const body = JSON.parse(text);
    this.validate(pointer, body, `${method.toUpperCase()} ${path} ${res.status}`);
    for (const name of ["api-version", "x-request-id"]) {
      assert.ok(res.headers.get(name), `${path}: ${name} header`);
    }
    return body;
  }
}

Deno.test("OpenAPI: every operation answers as the OpenAPI document says", async (t) => {
  await using server = await startServer();
  const url = server.url;
  const doc = await (await fetch(`${url}/openapi.json`)).json();
  const contract = new Contract(doc);

  const postJson = (path: string, body: unknown, bearer?: string) => {
    contract.checkRequest(path, body);
    return fetch(url + path, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify(body),
    });
  };
  const component = (name: string) => `/components/schemas/${name}`;

  let member: TestMember;

  await t.step("POST /api/auth: register, login, session, logout", async () => {
    const register = await postJson("/api/auth", {
      action: "register",
      username: "contract_ada",
      password: "a long passphrase",
    });
    assert.equal(register.status, 201);
    const signedIn = await contract.checkJson("post", "/api/auth", register);
    contract.validate(component("AuthResult_register"), signedIn, "register");

    const login = await postJson("/api/auth", {
      action: "login",
      username: "contract_ada",
      password: "a long passphrase",
    });
    assert.equal(login.status, 200);
    const loggedIn = await contract.checkJson("post", "/api/auth", login);
    contract.validate(component("AuthResult_login"), loggedIn, "login");

    const session = await postJson("/api/auth", { action: "session" }, loggedIn.sessionToken);
    assert.equal(session.status, 200);
    contract.validate(
      component("AuthResult_session"),
      await contract.checkJson("post", "/api/auth", session),
      "session",
    );

    const logout = await postJson("/api/auth", { action: "logout" }, loggedIn.sessionToken);
    assert.equal(logout.status, 200);
    contract.validate(
      component("AuthResult_logout"),
      await contract.checkJson("post", "/api/auth", logout),
      "logout",
    );

    const wrong = await postJson("/api/auth", {
      action: "login",
      username: "contract_ada",
      password: "not the password",
    });
    assert.equal(wrong.status, 401);
    const envelope = await contract.checkJson("post", "/api/auth", wrong);
    assert.equal(envelope.code, "invalid_credentials");
  });

  await t.step("POST /api/auth: changePassword, deleteAccount", async () => {
    const session = async () =>
      (await (await postJson("/api/auth", {
        action: "login",
        username: "contract_ada",
        password: "a long passphrase",
      })).json()).sessionToken as string;
    const keep = await session();
    const changed = await postJson("/api/auth", {
      action: "changePassword",
      currentPassword: "a long passphrase",
      newPassword: "a long passphrase",
    }, keep);
    assert.equal(changed.status, 200);
    contract.validate(
      component("AuthResult_changePassword"),
      await contract.checkJson("post", "/api/auth", changed),
      "changePassword",
    );
    const deleted = await postJson("/api/auth", {
      action: "deleteAccount",
      confirmUsername: "contract_ada",
    }, keep);
    assert.equal(deleted.status, 200);
    contract.validate(
      component("AuthResult_deleteAccount"),
      await contract.checkJson("post", "/api/auth", deleted),
      "deleteAccount",
    );
  });

  await t.step("POST /api/tokens: create, list, revoke", async () => {
    member = await registerWithToken(url, "contract_bob");
    const create = await postJson("/api/tokens", {
      action: "create",
      name: "to revoke",
      scopes: ["read"],
    }, member.sessionToken);
    assert.equal(create.status, 201);
    const created = await contract.checkJson("post", "/api/tokens", create);
    contract.validate(component("TokensResult_create"), created, "create");

    const list = await postJson("/api/tokens", { action: "list" }, member.sessionToken);
    assert.equal(list.status, 200);
    const listed = await contract.checkJson("post", "/api/tokens", list);
    contract.validate(component("TokensResult_list"), listed, "list");
    assert.equal(listed.tokens.length, 2);

    const revoke = await postJson(
      "/api/tokens",
      { action: "revoke", id: created.id },
      member.sessionToken,
    );
    assert.equal(revoke.status, 200);
    contract.validate(
      component("TokensResult_revoke"),
      await contract.checkJson("post", "/api/tokens", revoke),
      "revoke",
    );

    const noSession = await postJson("/api/tokens", { action: "list" });
    assert.equal(noSession.status, 401);
    await contract.checkJson("post", "/api/tokens", noSession);
  });

  await t.step("POST /api/proxy: healthCheck and every member action", async () => {
    const health = await postJson("/api/proxy", { action: "healthCheck" });
    assert.equal(health.status, 200);
    contract.validate(
      component("ProxyResult_healthCheck"),
      await contract.checkJson("post", "/api/proxy", health),
      "healthCheck",
    );

    const requests: [string, Record<string, unknown>][] = [
      ["getProfile", {}],
      ["updateProfile", { displayName: "Bob C." }],
      ["createColumn", {
        key: "steps",
        label: "Steps",
        type: "integer",
        direction: "higher_better",
      }],
      ["createColumn", {
        key: "mood",
        label: "Mood",
        type: "scale",
        scale_min: 1,
        scale_max: 5,
        goal: { op: "at_least", value: 3, per: "day", times: null },
      }],
      ["updateColumn", { key: "steps", unit: "steps", daily_agg: "sum", group: "Health" }],
      ["moveColumn", { key: "mood", direction: "up" }],
      ["listColumns", {}],
      ["saveEntry", { date: "2026-03-16", values: { steps: 9000, mood: 4 }, note: "walked" }],
      ["saveEntry", { date: "2026-03-17", values: { steps: 11000 } }],
      ["skipDay", { date: "2026-03-15" }],
      ["getEntries", { start: "2026-03-01", end: "2026-03-20" }],
      ["callTool", { name: "get_streak", arguments: { metric: "steps" } }],
      ["callTool", { name: "get_streak", arguments: { metric: "no_such_metric" } }],
      ["exportRecord", { format: "json" }],
      ["exportRecord", { format: "csv" }],
      ["importRecord", { csv: "date,steps\n2026-03-10,8000\n2026-03-11,7000\n" }],
      ["importRecord", {
        format: "daylio",
        dryRun: true,
        csv: "full_date,date,weekday,time,mood,activities,note_title,note\n" +
          "2026-03-12,12 March,Thursday,9:00 pm,rad,reading | walk,,good day\n",
      }],
      ["importRecord", { format: "loop", csv: "Date,Meditate,\n2026-03-12,YES_MANUAL,\n" }],
      ["deleteEntry", { date: "2026-03-15" }],
      ["archiveColumn", { key: "mood" }],
      ["listGrants", {}],
      // reminders (issue #24); the push endpoint is stored, never sent to here
      ["getReminders", {}],
      ["setReminders", { reminders: [{ at: "21:00", column: "steps" }], streakNudgeAt: "20:00" }],
      ["sendTestReminder", {}],
      ["addPushSubscription", {
        subscription: {
          endpoint: "https://push.example/contract",
          keys: {
            p256dh:
              "BAzsCDa34KE_zwHWO7V1Si6pcgwrEsfSyT3bQNQAqTOHv7GChkVQUsYWt-otdxp1J6hF2m_VYhXFgj2VcdJQoeU",
            auth: "NeaGJrr1UMMP1CiQa4Ccig",
          },
        },
      }],
      ["removePushSubscription", { endpoint: "https://push.example/contract" }],
      // pauses (issue #25)
      ["createPause", { start: "2026-03-01", end: "2026-03-05", columns: ["steps"] }],
      ["listPauses", {}],
      ["deleteColumn", { key: "mood" }],
    ];
    const seen = new Set<string>(["healthCheck"]);
    for (const [action, fields] of requests) {
      const res = await postJson("/api/proxy", { action, ...fields }, member.sessionToken);
      assert.equal(
        res.status,
        200,
        `${action}: ${res.status}`,
      );
      const body = await contract.checkJson("post", "/api/proxy", res);
      contract.validate(component(`ProxyResult_${action}`), body, action);
      seen.add(action);
    }

    // deletePause needs a pause's id.
    const paused = await postJson("/api/proxy", { action: "listPauses" }, member.sessionToken);
    const pauseId = (await paused.json()).pauses[0].id;
    const unpaused = await postJson(
      "/api/proxy",
      { action: "deletePause", id: pauseId },
      member.sessionToken,
    );
    assert.equal(unpaused.status, 200);
    const unpausedBody = await contract.checkJson("post", "/api/proxy", unpaused);
    contract.validate(component("ProxyResult_deletePause"), unpausedBody, "deletePause");
    seen.add("deletePause");

    // dismissInsight needs a stored finding: a paid member always gets the weekly review.
    await setTier(server.kv, server.clock, {
      username: "contract_bob",
      tier: "paid",
      until: "2099-12-31",
    });
    const memberId = (await server.kv.get<string>(keys.username("contract_bob"))).value!;
    const run = await runCoach({ kv: server.kv, clock: server.clock, owner: "t" }, memberId);
    assert.equal(run.status, "ran");
    const id = run.status === "ran" ? run.insights[0].id : "";
    const dismissed = await postJson(
      "/api/proxy",
      { action: "dismissInsight", id },
      member.sessionToken,
    );
    assert.equal(dismissed.status, 200);
    const dismissedBody = await contract.checkJson("post", "/api/proxy", dismissed);
    contract.validate(component("ProxyResult_dismissInsight"), dismissedBody, "dismissInsight");
    seen.add("dismissInsight");

    // An API token reads; a write with it is refused with the documented 403 envelope.
    const read = await postJson("/api/proxy", { action: "listColumns" }, member.token);
    assert.equal(read.status, 200);
    await contract.checkJson("post", "/api/proxy", read);
    const write = await postJson(
      "/api/proxy",
      { action: "updateProfile", units: "imperial" },
      member.token,
    );
    assert.equal(write.status, 403);
    assert.equal(
      (await contract.checkJson("post", "/api/proxy", write)).code,
      "insufficient_scope",
    );

    // revokeGrant is exercised after the OAuth flow below; every other action is covered here.
    const documented = Object.keys(doc.paths["/api/proxy"].post["x-action-responses"]);
    assert.deepEqual(
      documented.filter((a) => !seen.has(a)),
      ["revokeGrant"],
      "every documented action is exercised",
    );
  });

  await t.step(
    "POST /api/proxy: an unknown action answers the documented 400 envelope",
    async () => {
      const res = await fetch(`${url}/api/proxy`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Authorization: `Bearer ${member.sessionToken}`,
        },
        body: JSON.stringify({ action: "dropTables" }),
      });
      assert.equal(res.status, 400);
      const body = await contract.checkJson("post", "/api/proxy", res);
      assert.equal(body.code, "unknown_action");
      assert.equal(body.requestId, res.headers.get("x-request-id"));
    },
  );

  const rpc = (id: number, method: string, params?: unknown) =>
    params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
  const initialize = rpc(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "contract-test", version: "1.0.0" },
  });

  for (const path of ["/api/mcp", "/api/sandbox"] as const) {
    await t.step(
      `POST ${path}: initialize, ping, tools/list, tools/call, a notification`,
      async () => {
        const bearer = path === "/api/mcp" ? member.token : undefined;
        const init = await postJson(path, initialize);
        assert.equal(init.status, 200);
        const initBody = await contract.checkJson("post", path, init);
        assert.ok(initBody.result.protocolVersion);

        const ping = await postJson(path, rpc(2, "ping"));
        assert.deepEqual((await contract.checkJson("post", path, ping)).result, {});

        const list = await postJson(path, rpc(3, "tools/list"));
        const tools = (await contract.checkJson("post", path, list)).result.tools;
        assert.equal(tools.length, 18);

        // Both records have a "steps" column: the member's (created above) and the synthetic one.
        const metric = "steps";
        const call = await postJson(
          path,
          rpc(4, "tools/call", { name: "get_streak", arguments: { metric } }),
          bearer,
        );
        assert.equal(call.status, 200);
        const result = (await contract.checkJson("post", path, call)).result;
        assert.notEqual(result.isError, true, JSON.stringify(result));
        contract.validate(
          component("Tool_get_streak_Output"),
          result.structuredContent,
          "get_streak",
        );

        const columns = await postJson(
          path,
          rpc(5, "tools/call", { name: "list_columns", arguments: {} }),
          bearer,
        );
        const listed = (await contract.checkJson("post", path, columns)).result;
        contract.validate(
          component("Tool_list_columns_Output"),
          listed.structuredContent,
          "list_columns",
        );

        const note = await postJson(path, { jsonrpc: "2.0", method: "notifications/initialized" });
        assert.equal(note.status, 202);
        assert.equal(await note.text(), "");
        contract.responsePointer("post", path, 202, "application/json");

        const refused = await fetch(url + path, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(
            rpc(7, "initialize", {
              protocolVersion: "1999-01-01",
              capabilities: {},
              clientInfo: { name: "x", version: "1" },
            }),
          ),
        });
        const error = await contract.checkJson("post", path, refused);
        assert.equal(error.error.code, -32602);
        assert.ok(Array.isArray(error.error.data.supported));
      },
    );
  }

  await t.step("POST /api/mcp: tools/call without a credential is the documented 401", async () => {
    const res = await postJson(
      "/api/mcp",
      rpc(8, "tools/call", { name: "list_columns", arguments: {} }),
    );
    assert.equal(res.status, 401);
    assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer realm="routine-tracker-mcp"/);
    const body = await contract.checkJson("post", "/api/mcp", res);
    assert.equal(body.error.data.code, "unauthorized");
  });

  await t.step("OAuth: register, authorize signed out, token errors, the full flow", async () => {
    const redirectUri = "http://127.0.0.1:9/callback";
    const metadata = {
      client_name: "Contract App",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
    const register = await postJson("/api/oauth/register", metadata);
    assert.equal(register.status, 201);
    const client = await contract.checkJson("post", "/api/oauth/register", register);

    const badRedirect = await postJson("/api/oauth/register", {
      ...metadata,
      redirect_uris: ["http://evil.example/cb"],
    });
    assert.equal(badRedirect.status, 400);
    assert.equal(
      (await contract.checkJson("post", "/api/oauth/register", badRedirect)).error,
      "invalid_redirect_uri",
    );

    const { verifier, challenge } = newPkce();
    const query = {
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
    };
    const href = authorizeUrl(url, query);
    // The query the test sends is the one the document describes.
    for (const param of doc.paths["/api/oauth/authorize"].get.parameters) {
      const value = new URL(href).searchParams.get(param.name);
      if (param.required) assert.ok(value !== null, `required query parameter ${param.name}`);
      if (value !== null) {
        assert.ok(
          contract.accepts(
            `/paths/${escape("/api/oauth/authorize")}/get/parameters/${
              doc.paths["/api/oauth/authorize"].get.parameters.indexOf(param)
            }/schema`,
            value,
          ),
          `query parameter ${param.name}=${value}`,
        );
      }
    }
    const signedOut = await fetch(href, { redirect: "manual" });
    assert.equal(signedOut.status, 200);
    assert.match(signedOut.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(await signedOut.text(), /<form/);
    contract.responsePointer("get", "/api/oauth/authorize", 200, "text/html");

    const badCode = {
      grant_type: "authorization_code",
      code: "rt_ac_not-a-real-code",
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: client.client_id,
    };
    contract.checkRequest("/api/oauth/token", badCode, "application/x-www-form-urlencoded");
    const bad = await fetch(`${url}/api/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(badCode).toString(),
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get("cache-control"), "no-store");
    assert.equal(
      (await contract.checkJson("post", "/api/oauth/token", bad)).error,
      "invalid_grant",
    );

    // The whole flow, so the 200 token response and revokeGrant are checked too.
    const browser = await signUpMember(url, "contract_cy");
    const code = await codeFor(url, browser, client.client_id, redirectUri, challenge);
    const exchange = { ...badCode, code, resource: `${url}/api/mcp` };
    contract.checkRequest("/api/oauth/token", exchange, "application/x-www-form-urlencoded");
    const granted = await fetch(`${url}/api/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(exchange).toString(),
    });
    assert.equal(granted.status, 200);
    const tokens = await contract.checkJson("post", "/api/oauth/token", granted);
    const refreshed = await tokenRequest(url, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    assert.equal(refreshed.status, 200);
    contract.validate(component("OAuthTokenResponse"), refreshed.body, "refresh");

    const viaOAuth = await postJson(
      "/api/mcp",
      rpc(9, "tools/call", { name: "list_columns", arguments: {} }),
      refreshed.body.access_token as string,
    );
    assert.equal(viaOAuth.status, 200);
    await contract.checkJson("post", "/api/mcp", viaOAuth);

    const grants = await post(url, "/api/proxy", { action: "listGrants" }, browser.sessionToken);
    contract.validate(component("ProxyResult_listGrants"), grants.body, "listGrants");
    const grantId = (grants.body.grants as { grantId: string }[])[0].grantId;
    const revoke = await postJson(
      "/api/proxy",
      { action: "revokeGrant", grantId },
      browser.sessionToken,
    );
    assert.equal(revoke.status, 200);
    contract.validate(
      component("ProxyResult_revokeGrant"),
      await contract.checkJson("post", "/api/proxy", revoke),
      "revokeGrant",
    );
  });

  await t.step("the seven discovery documents", async () => {
    const documents = [
      "/openapi.json",
      "/.well-known/api-catalog",
      "/.well-known/mcp.json",
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-authorization-server",
      "/llms.txt",
      "/llms-full.txt",
    ];
    for (const path of documents) {
      const res = await fetch(url + path);
      assert.equal(res.status, 200, path);
      const documented = Object.keys(doc.paths[path].get.responses["200"].content)[0];
      const type = res.headers.get("content-type") ?? "";
      assert.ok(type.startsWith(documented.split(";")[0]), `${path}: ${type} vs ${documented}`);
      const pointer = `/paths/${escape(path)}/get/responses/200/content/${
        escape(documented)
      }/schema`;
      const text = await res.text();
      const body = documented.includes("json") ? JSON.parse(text) : text;
      contract.validate(pointer, body, `GET ${path}`);
    }
  });

  await t.step("the schemas can fail: altered bodies are refused", () => {
    const health = {
      version: "0.1.0",
      status: "healthy",
      timestamp: "2026-03-18T12:00:00.000Z",
      denoKv: "connected",
    };
    assert.ok(contract.accepts(component("ProxyResult_healthCheck"), health));
    assert.ok(!contract.accepts(component("ProxyResult_healthCheck"), { ...health, denoKv: 1 }));
    const { username: _gone, ...noName } = {
      username: "a",
      displayName: "a",
      timezone: "UTC",
      units: "metric",
      dayStartOffsetHours: 0,
      createdAt: "2026-01-01T00:00:00.000Z",
    };
    assert.ok(!contract.accepts(component("ProxyResult_getProfile"), noName));
    assert.ok(
      !contract.accepts(component("ErrorEnvelope"), { error: "x", code: "nope", requestId: "r" }),
    );
    assert.ok(
      !contract.accepts(
        `/paths/${escape("/api/mcp")}/post/responses/200/content/application~1json/schema`,
        { jsonrpc: "2.0", id: 1 },
      ),
    );
    assert.ok(
      !contract.accepts(
        `/paths/${escape("/api/proxy")}/post/requestBody/content/application~1json/schema`,
        { action: "getEntries", start: "2026-01-01" },
      ),
    );
  });
});
