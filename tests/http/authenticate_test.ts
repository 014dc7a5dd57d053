/**
 * One `authenticate` (lib/http/kernel/auth.ts, issue #23) as clients see it: every credential kind sent
 * to each kind of endpoint — MCP `tools/call` (API or OAuth access token with `read`), a member
 * action (session or API token), a session action (session only) — answers with the same status,
 * code and message the five entry points it replaced gave (this table passes on the old code too).
 */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { registerWithToken, send, toolCall } from "./_members.ts";

const OWN_ORIGIN = "http://localhost:8000";
const NOT_VALID = "The bearer token is not valid.";
const NO_SESSION = "The session is unknown, expired or signed out.";
const NO_ACCESS = "The access token is unknown, expired, revoked or not issued for this resource.";
const NEEDS_SESSION =
  "This endpoint needs a signed-in session: Authorization: Bearer <sessionToken>.";
const SESSION_REQUIRED = "An API token cannot do this; use the session token from /api/auth.";

type Sent = { authorization?: string; cookie?: string; origin?: string };

/** Status, code and message of one request, whatever the dialect (REST envelope or JSON-RPC). */
async function answerOf(
  a: { request(path: string, init?: RequestInit): Promise<Response> },
  endpoint: "mcp" | "member" | "session",
  sent: Sent,
): Promise<[number, string, string]> {
  const [path, body] = endpoint === "mcp"
    ? ["/api/mcp", toolCall("list_columns")]
    : endpoint === "member"
    ? ["/api/proxy", { action: "listColumns" }]
    : ["/api/tokens", { action: "list" }];
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  if (sent.authorization) headers.Authorization = sent.authorization;
  if (sent.cookie) headers.Cookie = `rt_session=${sent.cookie}`;
  if (sent.origin) headers.Origin = sent.origin;
  const res = await send(a, path, { method: "POST", headers, body: JSON.stringify(body) });
  const json = await res.json();
  if (res.status === 200) return [200, "", ""];
  return endpoint === "mcp"
    ? [res.status, json.error.data?.code ?? "transport", json.error.message]
    : [res.status, json.code, json.error];
}

Deno.test("authenticate() answers each credential at each kind of endpoint as before", async (t) => {
  await using a = await makeApp();
  const m = await registerWithToken(a, "boundary-member");
  const cases: [string, Sent, Record<"mcp" | "member" | "session", [number, string, string]>][] = [
    ["nothing", {}, {
      mcp: [401, "unauthorized", "tools/call needs Authorization: Bearer <token> with scope read."],
      member: [401, "unauthorized", NEEDS_SESSION],
      session: [401, "unauthorized", NEEDS_SESSION],
    }],
    ["a malformed Authorization header", { authorization: "Basic abc" }, {
      mcp: [401, "invalid_token", NOT_VALID],
      member: [401, "invalid_token", NO_SESSION],
      session: [401, "invalid_token", NO_SESSION],
    }],
    ["a token of no known kind", { authorization: "Bearer xyz_abc" }, {
      mcp: [401, "invalid_token", NOT_VALID],
      member: [401, "invalid_token", NOT_VALID],
      session: [401, "invalid_token", NO_SESSION],
    }],
    ["a valid API token", { authorization: `Bearer ${m.token}` }, {
      mcp: [200, "", ""],
      member: [200, "", ""],
      session: [403, "session_required", SESSION_REQUIRED],
    }],
    ["a valid session token", { authorization: `Bearer ${m.sessionToken}` }, {
      mcp: [401, "invalid_token", NOT_VALID],
      member: [200, "", ""],
      session: [200, "", ""],
    }],
    ["an unknown session token", { authorization: "Bearer rt_ses_unknown" }, {
      mcp: [401, "invalid_token", NOT_VALID],
      member: [401, "invalid_token", NO_SESSION],
      session: [401, "invalid_token", NO_SESSION],
    }],
    ["an unknown OAuth access token", { authorization: "Bearer rt_at_unknown" }, {
      mcp: [401, "invalid_token", NO_ACCESS],
      member: [401, "invalid_token", NOT_VALID],
      session: [401, "invalid_token", NO_SESSION],
    }],
    ["the session cookie from this origin", { cookie: m.sessionToken, origin: OWN_ORIGIN }, {
      mcp: [401, "unauthorized", "tools/call needs Authorization: Bearer <token> with scope read."],
      member: [200, "", ""],
      session: [200, "", ""],
    }],
    ["the session cookie from another origin", {
      cookie: m.sessionToken,
      origin: "https://evil.example",
    }, {
      mcp: [403, "transport", "Forbidden: Invalid Origin header: https://evil.example"],
      member: [
        403,
        "forbidden",
        "A cookie session is only accepted from this service's own origin.",
      ],
      session: [
        403,
        "forbidden",
        "A cookie session is only accepted from this service's own origin.",
      ],
    }],
    ["an API token in the session cookie", { cookie: m.token, origin: OWN_ORIGIN }, {
      mcp: [401, "unauthorized", "tools/call needs Authorization: Bearer <token> with scope read."],
      member: [403, "session_required", SESSION_REQUIRED],
      session: [403, "session_required", SESSION_REQUIRED],
    }],
  ];
  for (const [what, sent, expected] of cases) {
    await t.step(what, async () => {
      for (const endpoint of ["mcp", "member", "session"] as const) {
        assert.deepEqual(await answerOf(a, endpoint, sent), expected[endpoint], endpoint);
      }
    });
  }
});
