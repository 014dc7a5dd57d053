/**
 * Garbage in, a clear error out (issue #13 error audit). Table-driven over every route, method,
 * action, tool and form: wrong methods, malformed and mistyped JSON, wrong media types, hostile
 * strings and numbers, odd dates, path and query tricks. Every answer must be < 500, in the
 * documented shape (the REST envelope of DESIGN §5, a JSON-RPC error or `isError` result for MCP,
 * RFC 6749 §5.2 on OAuth endpoints, an HTML page for browser pages), leak no stack or internal
 * path, and a refused write must leave the member's record as it was.
 */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import { post, registerWithToken, type TestMember } from "./_members.ts";
import { csrfOf, OWN_ORIGIN, signedUpBrowser } from "./_web.ts";
import { routes } from "../../manifest.gen.ts";
import { PROXY_ACTIONS } from "../../lib/actions/proxy_actions.ts";
import { AUTH_ACTIONS } from "../../lib/actions/auth_actions.ts";
import { TOKEN_ACTIONS } from "../../lib/actions/token_actions.ts";

/** Hostile values for one JSON field. */
const BAD_VALUES: unknown[] = [
  null,
  [],
  {},
  "",
  "x".repeat(70_000),
  1e308,
  -1,
  0.5,
  -0.0001,
  9007199254740993,
  "NaN",
  "Infinity",
  "2026-02-30",
  "99999-01-01",
  "+002026-01-01",
  "0000-01-01",
  "2026-1-1",
  "😀\u202e\u05d0",
  "a\u0000b",
  "\ud800",
  true,
  123,
  "../../etc/passwd",
  "%00",
  [1, "\ud800"],
  { ["k".repeat(5000)]: 1 },
  "25:61",
];

/** Whole bodies that are not the JSON object an endpoint wants. */
const BAD_BODIES = ["", "{", "[]", '"x"', "null", "1", "NaN", "[".repeat(10_000), '{"a":1'];

/** Media types that are not JSON. */
const WRONG_TYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"];

const STACK = /\n\s+at |file:\/\/|\.tsx?:\d+:\d+|"stack"\s*:|\b[A-Z][a-zA-Z]*Error: /;

/** What a client sees: status, content type, text. */
interface Seen {
  status: number;
  type: string;
  text: string;
  allow: string | null;
  label: string;
}

async function see(t: TestApp, label: string, path: string, init: RequestInit = {}) {
  const res = await t.request(path, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  const seen: Seen = {
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    text,
    allow: res.headers.get("allow"),
    label,
  };
  assert.ok(seen.status < 500, `${label}: ${seen.status} ${text.slice(0, 300)}`);
  assert.ok(!STACK.test(text), `${label}: leaks a stack or path: ${text.slice(0, 300)}`);
  assert.ok(!text.includes(Deno.cwd()), `${label}: leaks the working directory`);
  return seen;
}

function json(s: Seen): Record<string, unknown> {
  assert.match(s.type, /^application\/json/, `${s.label}: ${s.type}`);
  return JSON.parse(s.text);
}

/** The REST envelope `{error, code, requestId}` (DESIGN §5). */
function assertEnvelope(s: Seen): void {
  assert.ok(
    s.status >= 400,
    `${s.label}: expected an error, got ${s.status} ${s.text.slice(0, 200)}`,
  );
  const body = json(s);
  for (const key of ["error", "code", "requestId"]) {
    assert.equal(typeof body[key], "string", `${s.label}: ${key} in ${s.text.slice(0, 200)}`);
  }
}

/** A JSON-RPC error object, or a tool result flagged `isError`. */
function assertRpcFailure(s: Seen): void {
  const body = json(s);
  assert.equal(body.jsonrpc, "2.0", `${s.label}: ${s.text.slice(0, 200)}`);
  const error = body.error as { code?: unknown; message?: unknown } | undefined;
  if (error) {
    assert.ok(Number.isInteger(error.code) && typeof error.message === "string", s.label);
    return;
  }
  const result = body.result as { isError?: boolean } | undefined;
  assert.ok(result, `${s.label}: neither error nor result`);
}

/** RFC 6749 §5.2 / RFC 7591 §3.2.2: `error` is a registered code, plus a description. */
function assertOAuthError(s: Seen): void {
  assert.ok(s.status >= 400, s.label);
  const body = json(s);
  assert.match(String(body.error), /^[a-z_]+$/, `${s.label}: ${s.text.slice(0, 200)}`);
  assert.equal(typeof body.error_description, "string", s.label);
}

/**
 * A JSON POST with its Content-Length, as clients send it; `chunked` leaves the length out, so the
 * body is counted as it streams (lib/http/kernel/body.ts reads the two ways differently).
 */
function jsonInit(
  body: unknown,
  bearer?: string,
  type = "application/json",
  chunked = false,
): RequestInit {
  const bytes = new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body));
  return {
    method: "POST",
    headers: {
      ...(type ? { "Content-Type": type } : {}),
      ...(chunked ? {} : { "Content-Length": String(bytes.length) }),
      Accept: "application/json, text/event-stream",
      ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
    },
    body: chunked ? ReadableStream.from([bytes]) : bytes,
  };
}

/** A member with two columns and a day, and the record as the member's export shows it. */
async function seeded(t: TestApp): Promise<TestMember> {
  const m = await registerWithToken(t, "alice");
  for (
    const body of [
      { action: "createColumn", key: "sleep_h", label: "Sleep", type: "number", unit: "h" },
      { action: "createColumn", key: "mood", label: "Mood", type: "scale" },
      { action: "saveEntry", date: "2026-01-05", values: { sleep_h: 7, mood: 3 }, note: "ok" },
    ]
  ) assert.equal((await post(t, "/api/proxy", body, m.sessionToken)).status, 200);
  return m;
}

async function recordOf(t: TestApp, m: TestMember): Promise<string> {
  const out = [];
  for (const action of ["getProfile", "listColumns", "exportRecord", "listGrants"]) {
    const res = await post(t, "/api/proxy", { action }, m.sessionToken);
    assert.equal(res.status, 200);
    out.push(res.body);
  }
  return JSON.stringify(out);
}

const MCP_PATHS = ["/api/mcp", "/api/sandbox", "/api/v1/mcp", "/api/v1/sandbox"];
const OAUTH_PATHS = ["/api/oauth/register", "/api/oauth/token"];

Deno.test("bad input: every route answers a method it does not serve with 405, an Allow it keeps, and the path's envelope", async () => {
  await using t = await makeApp();
  const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
  for (const { path } of routes) {
    const concrete = path.replace(/:[a-z]+(\{[^}]*\})?/g, "x");
    for (const method of methods) {
      const s = await see(t, `${method} ${concrete}`, concrete, { method });
      if (s.status !== 405) continue;
      const mcp = MCP_PATHS.includes(concrete);
      if (method !== "HEAD") {
        if (mcp) assertRpcFailure(s);
        else assertEnvelope(s);
      }
      // RFC 9110 §15.5.6: Allow lists the methods the resource supports; none may answer 405.
      assert.ok(s.allow, `${s.label}: 405 without Allow`);
      for (const allowed of s.allow.split(/,\s*/)) {
        const again = await see(t, `${allowed} ${concrete}`, concrete, { method: allowed });
        assert.notEqual(again.status, 405, `${s.label} says Allow: ${s.allow}`);
      }
    }
  }
});

Deno.test("bad input: JSON endpoints refuse malformed, mistyped and wrongly labelled bodies with their error shape", async () => {
  await using t = await makeApp({ config: { rateLimitMultiplier: 1000 } });
  const m = await registerWithToken(t, "alice");
  const rest = ["/api/proxy", "/api/auth", "/api/tokens", "/api/v1/proxy"];
  for (const path of [...rest, ...MCP_PATHS, ...OAUTH_PATHS]) {
    const bearer = path.includes("mcp") ? m.token : m.sessionToken;
    const check = (s: Seen) =>
      MCP_PATHS.includes(path)
        ? assertRpcFailure(s)
        : OAUTH_PATHS.includes(path)
        ? assertOAuthError(s)
        : assertEnvelope(s);
    for (const body of BAD_BODIES) {
      for (const chunked of [false, true]) {
        const label = `${path} ${JSON.stringify(body.slice(0, 20))} chunked=${chunked}`;
        check(await see(t, label, path, jsonInit(body, bearer, "application/json", chunked)));
      }
    }
    for (const type of [...WRONG_TYPES, ""]) {
      if (OAUTH_PATHS.includes(path) && type === "application/x-www-form-urlencoded") continue;
      const s = await see(t, `${path} as ${type || "no type"}`, path, jsonInit("{}", bearer, type));
      check(s);
      assert.ok([400, 415].includes(s.status), `${s.label}: ${s.status}`);
    }
    const huge = JSON.stringify({ action: "x".repeat(2 * 1024 * 1024) });
    for (const chunked of [false, true]) {
      const s = await see(
        t,
        `${path} 2 MB`,
        path,
        jsonInit(huge, bearer, "application/json", chunked),
      );
      check(s);
      assert.equal(s.status, 413, s.label);
    }
  }
});

/** A valid request per proxy action; each field is then replaced by every bad value. */
const PROXY_BASES: Record<string, Record<string, unknown>[]> = {
  healthCheck: [{}],
  getProfile: [{}],
  updateProfile: [{
    displayName: "A",
    timezone: "Europe/Paris",
    units: "metric",
    dayStartOffsetHours: 0,
  }],
  listColumns: [{}],
  createColumn: [{
    key: "steps",
    label: "Steps",
    type: "integer",
    unit: "steps",
    direction: "higher_better",
    daily_agg: "sum",
    goal: { op: "gte", value: 8000 },
  }],
  updateColumn: [{
    key: "sleep_h",
    label: "S",
    unit: "h",
    direction: "neutral",
    goal: null,
    group: "Night",
  }],
  archiveColumn: [{ key: "sleep_h", archived: true }],
  moveColumn: [{ key: "sleep_h", direction: "down" }],
  deleteColumn: [{ key: "sleep_h" }],
  getEntries: [{ start: "2026-01-01", end: "2026-01-10" }],
  saveEntry: [{ date: "2026-01-06", values: { sleep_h: 7, mood: 2 }, note: "n" }],
  skipDay: [{ date: "2026-01-07", columns: ["sleep_h"] }],
  deleteEntry: [{ date: "2026-01-05" }],
  callTool: [{ name: "get_streak", arguments: { metric: "sleep_h" } }],
  exportRecord: [{ format: "csv" }],
  importRecord: [
    { format: "routine-tracker", csv: "date,sleep_h\n2026-01-02,7\n" },
    { format: "loop", zipBase64: "UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==" },
  ],
  listGrants: [{}],
  revokeGrant: [{ grantId: "g" }, { clientId: "c" }],
  dismissInsight: [{ id: "i" }],
  getReminders: [{}],
  setReminders: [{
    reminders: [{ at: "21:00", column: "sleep_h" }],
    streakNudgeAt: "20:00",
  }],
  addPushSubscription: [{
    subscription: {
      endpoint: "https://push.example/abc",
      keys: {
        p256dh:
          "BAzsCDa34KE_zwHWO7V1Si6pcgwrEsfSyT3bQNQAqTOHv7GChkVQUsYWt-otdxp1J6hF2m_VYhXFgj2VcdJQoeU",
        auth: "NeaGJrr1UMMP1CiQa4Ccig",
      },
    },
  }],
  removePushSubscription: [{ endpoint: "https://push.example/abc" }],
  sendTestReminder: [{}],
  // pauses (issue #25)
  listPauses: [{}],
  createPause: [{ start: "2026-01-08", end: "2026-01-09", columns: ["sleep_h"] }],
  deletePause: [{ id: "no-such-pause" }],
};

Deno.test("/api/proxy: every action with every bad argument answers the envelope and changes nothing", async () => {
  await using t = await makeApp({ config: { rateLimitMultiplier: 1000 } });
  const m = await seeded(t);
  assert.deepEqual(Object.keys(PROXY_BASES).sort(), Object.keys(PROXY_ACTIONS).sort());
  for (const [action, bases] of Object.entries(PROXY_BASES)) {
    for (const base of bases) {
      const variants: [string, Record<string, unknown>][] = [
        ["extra field", { ...base, ["k".repeat(5000)]: 1 }],
        ...Object.keys(base).map((f): [string, Record<string, unknown>] => {
          const { [f]: _, ...rest } = base;
          return [`without ${f}`, rest];
        }),
      ];
      for (const f of Object.keys(base)) {
        for (const bad of BAD_VALUES) {
          variants.push([`${f}=${JSON.stringify(bad).slice(0, 24)}`, { ...base, [f]: bad }]);
        }
      }
      for (const [what, fields] of variants) {
        for (const bearer of [m.sessionToken, m.token]) {
          const s = await see(
            t,
            `${action} ${what}`,
            "/api/proxy",
            jsonInit({ action, ...fields }, bearer),
          );
          if (s.status >= 400) assertEnvelope(s);
          else assert.equal(json(s).error, undefined, s.label);
        }
      }
    }
  }
  // Some bad-looking values are valid (a label "NaN", a note of emoji): a refused write is compared
  // with the record as the last accepted one left it.
  let before = await recordOf(t, m);
  for (const [action, bases] of Object.entries(PROXY_BASES)) {
    if (!PROXY_ACTIONS[action as keyof typeof PROXY_ACTIONS].writes) continue;
    for (const base of bases) {
      for (const f of Object.keys(base)) {
        for (const bad of BAD_VALUES) {
          const s = await see(
            t,
            `${action} ${f}=${JSON.stringify(bad).slice(0, 20)}`,
            "/api/proxy",
            jsonInit({ action, ...base, [f]: bad }, m.sessionToken),
          );
          if (s.status < 400) {
            before = await recordOf(t, m);
            continue;
          }
          assertEnvelope(s);
          assert.equal(await recordOf(t, m), before, `${s.label} changed the record`);
        }
      }
    }
  }
});

/** A request per auth and token action, each refused as it stands (wrong password, no such id). */
const ACCOUNT_BASES: [string, string, Record<string, unknown>][] = [
  ["/api/auth", "register", { username: "bob", password: "another long passphrase" }],
  ["/api/auth", "login", { username: "alice", password: "a wrong passphrase" }],
  ["/api/auth", "session", {}],
  ["/api/auth", "changePassword", {
    currentPassword: "a wrong passphrase",
    newPassword: "another long passphrase",
  }],
  ["/api/auth", "deleteAccount", { confirmUsername: "nobody" }],
  ["/api/auth", "setEmail", { email: "alice@example.org" }],
  ["/api/auth", "verifyEmail", { token: "rt_ml_nope" }],
  ["/api/auth", "requestPasswordReset", { email: "alice@example.org" }],
  ["/api/auth", "resetPassword", { token: "rt_ml_nope", newPassword: "another long passphrase" }],
  ["/api/tokens", "create", { name: "t", scopes: ["read"] }],
  ["/api/tokens", "list", {}],
  ["/api/tokens", "revoke", { id: "nope" }],
];

Deno.test("/api/auth and /api/tokens: every action with bad fields answers the envelope", async () => {
  await using t = await makeApp({ config: { rateLimitMultiplier: 1000 } });
  const m = await registerWithToken(t, "alice");
  const covered = (path: string) => ACCOUNT_BASES.filter(([p]) => p === path).map(([, a]) => a);
  // logout is left out: sent well-formed, it would end the session the others run under.
  assert.deepEqual([...covered("/api/auth"), "logout"].sort(), Object.keys(AUTH_ACTIONS).sort());
  assert.deepEqual(covered("/api/tokens").sort(), Object.keys(TOKEN_ACTIONS).sort());
  const unknown: [string, string, Record<string, unknown>] = ["/api/auth", "nope", {}];
  for (const [path, action, base] of [...ACCOUNT_BASES, unknown]) {
    const variants: Record<string, unknown>[] = [{ ...base, ["k".repeat(5000)]: 1 }, {
      action: undefined,
      ...base,
    }];
    for (const f of [...Object.keys(base), "action"]) {
      const { [f]: _, ...rest } = base;
      variants.push(rest);
      for (const bad of BAD_VALUES) variants.push({ ...base, [f]: bad });
    }
    for (const fields of variants) {
      const body = "action" in fields ? fields : { action, ...fields };
      const label = `${path} ${action} ${JSON.stringify(fields).slice(0, 50)}`;
      const s = await see(t, label, path, jsonInit(body, m.sessionToken));
      if (s.status >= 400) assertEnvelope(s);
    }
  }
  // Nothing of that signed the member out, re-passworded, deleted or revoked anything.
  const login = { action: "login", username: "alice", password: "a long passphrase" };
  assert.equal((await post(t, "/api/auth", login)).status, 200);
  assert.equal((await post(t, "/api/auth", { action: "session" }, m.sessionToken)).status, 200);
  assert.equal((await post(t, "/api/proxy", { action: "getProfile" }, m.token)).status, 200);
});

Deno.test("bad input: MCP, sandbox and callTool: every tool with every bad argument is a tool error, never a fault", async () => {
  await using t = await makeApp({ config: { rateLimitMultiplier: 1000 } });
  const m = await seeded(t);
  const list = json(
    await see(
      t,
      "tools/list",
      "/api/sandbox",
      jsonInit({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    ),
  );
  const tools =
    (list.result as { tools: { name: string; inputSchema: { properties?: object } }[] }).tools;
  assert.ok(tools.length >= 18);
  for (const tool of tools) {
    const props = [...Object.keys(tool.inputSchema.properties ?? {}), "zzz"];
    const argSets: unknown[] = [null, [], "x", 1];
    for (const p of props) {
      for (const bad of BAD_VALUES) argSets.push({ metric: "sleep_h", [p]: bad });
    }
    for (const args of argSets) {
      const label = `${tool.name} ${JSON.stringify(args).slice(0, 40)}`;
      for (const [path, bearer] of [["/api/sandbox", undefined], ["/api/mcp", m.token]] as const) {
        const call = {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: tool.name, arguments: args },
        };
        assertRpcFailure(await see(t, `${path} ${label}`, path, jsonInit(call, bearer)));
      }
      const s = await see(
        t,
        `callTool ${label}`,
        "/api/proxy",
        jsonInit({ action: "callTool", name: tool.name, arguments: args }, m.sessionToken),
      );
      if (s.status >= 400) assertEnvelope(s);
    }
  }
  for (
    const rpc of [
      { jsonrpc: "2.0", id: {}, method: "tools/list" },
      { jsonrpc: "1.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: null },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x".repeat(100_000) } },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "\ud800\u0000" } },
      { jsonrpc: "2.0", id: 1, method: "initialize", params: "x" },
      { jsonrpc: "2.0", id: 1e308, method: "nope/\u0000" },
      { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "../../main.ts" } },
    ]
  ) {
    for (const path of MCP_PATHS) {
      assertRpcFailure(
        await see(t, `${path} ${JSON.stringify(rpc).slice(0, 60)}`, path, jsonInit(rpc, m.token)),
      );
    }
  }
});

Deno.test("OAuth endpoints: bad parameters answer RFC 6749 §5.2 errors; authorize answers an HTML page", async () => {
  await using t = await makeApp({ config: { rateLimitMultiplier: 1000 } });
  const regFields = [
    "redirect_uris",
    "client_name",
    "grant_types",
    "response_types",
    "token_endpoint_auth_method",
    "scope",
    "client_uri",
    "logo_uri",
  ];
  for (const f of regFields) {
    for (const bad of BAD_VALUES) {
      const body = { redirect_uris: ["http://127.0.0.1:9/cb"], client_name: "c", [f]: bad };
      const s = await see(
        t,
        `register ${f}=${JSON.stringify(bad).slice(0, 20)}`,
        "/api/oauth/register",
        jsonInit(body),
      );
      if (s.status >= 400) assertOAuthError(s);
    }
  }
  const tokenFields = [
    "grant_type",
    "code",
    "redirect_uri",
    "client_id",
    "code_verifier",
    "refresh_token",
    "resource",
  ];
  for (const f of tokenFields) {
    for (const bad of ["", "x".repeat(20_000), "\u0000", "%00", "../..", "😀\u202e"]) {
      const form = new URLSearchParams({
        grant_type: "authorization_code",
        code: "c",
        client_id: "c",
        [f]: bad,
      });
      const s = await see(t, `token ${f}=${JSON.stringify(bad).slice(0, 20)}`, "/api/oauth/token", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      });
      assertOAuthError(s);
    }
  }
  const dup = await see(t, "token duplicate grant_type", "/api/oauth/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=authorization_code&grant_type=refresh_token",
  });
  assertOAuthError(dup);
  const params = [
    "client_id",
    "redirect_uri",
    "response_type",
    "state",
    "code_challenge",
    "code_challenge_method",
    "scope",
    "resource",
  ];
  for (const p of params) {
    for (const bad of ["", "%00", "%E0%A4%A", "x".repeat(5000), "..%2F..%2Fmain.ts"]) {
      const s = await see(
        t,
        `authorize ${p}=${bad.slice(0, 20)}`,
        `/api/oauth/authorize?${p}=${bad}&${p}=dup`,
        { headers: { Accept: "text/html" } },
      );
      assert.match(s.type, /^text\/html/, s.label);
      assert.ok(s.status >= 400, s.label);
    }
  }
});

/** Form posts of the web app: each field in turn set to a bad value, with and without the token. */
const FORMS: Record<string, Record<string, string>[]> = {
  "/app": [{ do: "save", "v.sleep_h": "7", note: "n" }, { skip: "sleep_h" }],
  "/app/columns": ["add", "edit", "archive", "restore", "up", "down", "templates_all", "nope"].map(
    (d) => ({
      do: d,
      key: "sleep_h",
      label: "L",
      type: "number",
      unit: "h",
      goal_op: "gte",
      goal_value: "1",
    }),
  ),
  "/app/settings/profile": [{
    displayName: "A",
    timezone: "UTC",
    units: "metric",
    dayStartOffsetHours: "0",
  }],
  "/app/settings/tokens": [{ name: "t" }],
  "/app/settings/tokens/revoke": [{ id: "x" }],
  "/app/settings/apps/revoke": [{ id: "x" }],
  // `payload` is the preview's base64 of the file; the first is not base64 at all.
  "/app/settings/import": [
    { format: "routine-tracker", payload: "date,sleep_h\n2026-01-02,7\n", step: "preview" },
    { format: "routine-tracker", payload: btoa("date,sleep_h\n2026-01-02,7\n"), step: "confirm" },
  ],
  "/app/settings/password": [{ currentPassword: "wrong", newPassword: "short" }],
  "/app/settings/delete": [{ confirmUsername: "nobody", password: "wrong" }],
  "/signin": [{ username: "alice", password: "wrong" }],
  "/signup": [{ username: "alice", password: "x" }],
};
const BAD_FIELDS = [
  "",
  "x".repeat(70_000),
  "-1",
  "0.5",
  "1e308",
  "NaN",
  "2026-02-30",
  "99999-01-01",
  "😀\u202e",
  "a\u0000b",
  "../..",
  "[]",
];

/** A browser's form post: urlencoded or multipart, with its Content-Length as browsers send it. */
async function formInit(
  fields: Record<string, string>,
  cookie: string,
  multipart: boolean,
  origin: boolean,
): Promise<RequestInit> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const encoded = multipart
    ? new Request("http://localhost/", { method: "POST", body: form })
    : new Request("http://localhost/", {
      method: "POST",
      body: new URLSearchParams(fields),
    });
  const body = new Uint8Array(await encoded.arrayBuffer());
  return {
    method: "POST",
    headers: {
      "Content-Type": encoded.headers.get("content-type")!,
      "Content-Length": String(body.length),
      Cookie: cookie,
      ...(origin ? { Origin: OWN_ORIGIN } : {}),
    },
    body,
  };
}

/** Token and Origin of a form post: ours, none, forged. */
const CSRF_CASES = (csrf: string): [string | null, boolean][] => [
  [null, true],
  [csrf, false],
  [null, false],
  ["forged", false],
];

Deno.test("web forms: bad fields, with and without the CSRF token, answer an HTML page and change nothing", async () => {
  await using t = await makeApp({ config: { rateLimitMultiplier: 1000 } });
  const b = await signedUpBrowser(t, "alice");
  const member = { sessionToken: b.session! } as TestMember;
  for (
    const body of [
      { action: "createColumn", key: "sleep_h", label: "Sleep", type: "number", unit: "h" },
      { action: "saveEntry", date: "2026-01-05", values: { sleep_h: 7 } },
    ]
  ) assert.equal((await post(t, "/api/proxy", body, b.session)).status, 200);
  const csrf = csrfOf((await b.get("/app/settings")).html);
  let before = await recordOf(t, member);
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  for (const [path, bases] of Object.entries(FORMS)) {
    for (const base of bases) {
      for (const f of Object.keys(base)) {
        for (const bad of BAD_FIELDS) {
          // Our Origin alone passes the CSRF check (lib/http/web/browser_session.ts); without one, the token.
          for (const [token, origin] of CSRF_CASES(csrf)) {
            const fields = { ...base, [f]: bad, ...(token ? { csrf: token } : {}) };
            const encodings = path === "/app/settings/import" ? ["url", "multipart"] : ["url"];
            for (const encoding of encodings) {
              const label = `${path} ${JSON.stringify(base).slice(0, 30)} ${f}=${
                bad.slice(0, 12)
              } csrf=${token?.slice(0, 6)} origin=${origin} as ${encoding}`;
              const init = await formInit(fields, cookie, encoding === "multipart", origin);
              const s = await see(t, label, path, init);
              if (!origin && token !== csrf) {
                // Neither our Origin nor the token: refused (or too large to read) before any use.
                assert.ok([403, 413].includes(s.status), `${s.label}: ${s.status}`);
              }
              if (s.status >= 400) {
                assert.match(s.type, /^text\/html/, s.label);
                assert.equal(await recordOf(t, member), before, `${s.label} changed the record`);
              } else before = await recordOf(t, member);
            }
          }
        }
      }
    }
  }
  for (const path of Object.keys(FORMS)) {
    for (const raw of ["%", "a=%E0%A4%A", `csrf=${csrf}&csrf=${csrf}`, "=&=&", "\u0000"]) {
      for (const type of ["application/x-www-form-urlencoded", "application/json", ""]) {
        const s = await see(t, `${path} raw ${JSON.stringify(raw.slice(0, 12))} as ${type}`, path, {
          method: "POST",
          headers: {
            ...(type ? { "Content-Type": type } : {}),
            "Content-Length": String(new TextEncoder().encode(raw).length),
            Cookie: cookie,
            Origin: OWN_ORIGIN,
          },
          body: raw,
        });
        assert.ok(s.status >= 400 || s.status === 303 || s.status === 200, s.label);
      }
    }
  }
  assert.equal(await recordOf(t, member), before);
});

Deno.test("path and query parameters: NUL, traversal, bad escapes, huge and repeated values", async () => {
  await using t = await makeApp();
  const b = await signedUpBrowser(t, "alice");
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const paths = [
    "/docs/%00",
    "/docs/..%2f..%2fmain.ts",
    "/docs/%2e%2e",
    `/docs/${"x".repeat(10_000)}`,
    "/docs/%E0%A4%A",
    "/docs/mcp.md%00",
    "/static/..%2f..%2fmain.ts",
    "/static/%00",
    `/static/${"a/".repeat(3000)}`,
    "/static/%E0%A4%A",
    "/app/%00",
    `/app/${"x".repeat(10_000)}`,
    "/app/%E0%A4%A",
    "/.well-known/oauth-protected-resource/%00",
    "/.well-known/oauth-protected-resource/%E0%A4%A",
    `/.well-known/oauth-protected-resource/${"x".repeat(10_000)}`,
    "/api/v1/%E0%A4%A",
    "/%00",
  ];
  const pages = [
    "/",
    "/app",
    "/app/history",
    "/app/columns",
    "/app/insights",
    "/app/settings",
    "/app/settings/export",
    "/signin",
    "/signup",
    "/membership",
    "/sandbox",
    "/api",
    "/api-docs",
    "/docs/mcp",
    "/docs/errors.md",
    "/openapi.json",
    "/.well-known/oauth-authorization-server",
  ];
  const queries = ["day", "next", "format", "column", "range"].flatMap((q) =>
    [
      "",
      "%00",
      "%E0%A4%A",
      "2026-02-30",
      "99999-01-01",
      "-1",
      "NaN",
      "1e308",
      "x".repeat(5000),
      "%ED%A0%80",
      "..%2F..",
      "a&" + q + "=b",
    ].map((v) => `${q}=${v}`)
  );
  for (const path of [...paths, ...pages.flatMap((p) => queries.map((q) => `${p}?${q}`))]) {
    for (const accept of ["text/html", "application/json"]) {
      const s = await see(t, `GET ${path.slice(0, 60)} (${accept})`, path, {
        headers: { Cookie: cookie, Accept: accept },
      });
      if (s.status >= 400 && s.type.startsWith("application/json")) assertEnvelope(s);
    }
  }
  for (
    const c of [
      "rt_session=%E0%A4%A",
      `rt_session=${"x".repeat(5000)}`,
      "rt_flash=%E0%A4%A",
      "rt_form=%00",
      "=;;;",
    ]
  ) {
    for (const page of pages) {
      await see(t, `GET ${page} with ${c.slice(0, 20)}`, page, { headers: { Cookie: c } });
    }
  }
});

Deno.test("a note with a NUL is refused: the member's CSV export stays importable", async () => {
  await using t = await makeApp();
  const m = await seeded(t);
  const before = await recordOf(t, m);
  const save = await see(
    t,
    "note with NUL",
    "/api/proxy",
    jsonInit(
      { action: "saveEntry", date: "2026-01-06", values: { sleep_h: 7 }, note: "a\u0000b" },
      m.sessionToken,
    ),
  );
  assertEnvelope(save);
  assert.equal(json(save).code, "invalid_request");
  assert.equal(await recordOf(t, m), before);
  // Whatever was stored exports to a CSV the import takes back (lib/record/import_source.ts
  // refuses any NUL as "not a CSV text file").
  const csv =
    (await post(t, "/api/proxy", { action: "exportRecord", format: "csv" }, m.sessionToken)).body
      .csv;
  const again = await post(t, "/api/proxy", { action: "importRecord", csv }, m.sessionToken);
  assert.equal(again.status, 200, JSON.stringify(again.body));
});

Deno.test("bad input: a browser that GETs a form-only address (a reload after a refused form) gets an HTML 405 page", async () => {
  await using t = await makeApp();
  const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
  const formOnly = routes.filter(({ path, module }) =>
    !module.handler.GET && !path.startsWith("/api/") && !path.includes(":")
  ).map(({ path }) => path);
  // (Settings' POST addresses answer a GET with a redirect to their section: not form-only.)
  assert.ok(formOnly.includes("/signout"), formOnly.join(", "));
  for (const path of formOnly) {
    const s = await see(t, `GET ${path} from a browser`, path, { headers: { Accept: browser } });
    assert.equal(s.status, 405, s.label);
    assert.match(s.type, /^text\/html/, s.label);
    assert.equal(s.allow, "POST", s.label);
    // A program gets the envelope, as for any other path.
    assertEnvelope(await see(t, `GET ${path}`, path, { headers: { Accept: "application/json" } }));
  }
  assertEnvelope(
    await see(t, "GET /api/proxy from a browser", "/api/proxy", { headers: { Accept: browser } }),
  );
});
