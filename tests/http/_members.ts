/** Route A over real HTTP for tests: register, mint a token, write through /api/proxy. */

import assert from "node:assert/strict";

/** A registered member as a client holds it. */
export interface TestMember {
  username: string;
  sessionToken: string;
  token: string;
  tokenId: string;
}

/** Where requests go: a server's base URL (real sockets), or an app in process (`app.request`). */
export type Target = string | { request(path: string, init?: RequestInit): Promise<Response> };

/** Sends `init` to `path` on `target`. */
export function send(target: Target, path: string, init: RequestInit): Promise<Response> {
  return typeof target === "string" ? fetch(target + path, init) : target.request(path, init);
}

/** POSTs JSON to `path` on `target` and returns status and parsed body. */
export async function post(
  url: Target,
  path: string,
  body: unknown,
  bearer?: string,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await send(url, path, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {}, headers: res.headers };
}

/** Registers `username` and mints a read token (Route A steps 1–2). */
export async function registerWithToken(url: Target, username: string): Promise<TestMember> {
  const reg = await post(url, "/api/auth", {
    action: "register",
    username,
    password: "a long passphrase",
  });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  const sessionToken = reg.body.sessionToken as string;
  const created = await post(url, "/api/tokens", {
    action: "create",
    name: "test",
    scopes: ["read"],
  }, sessionToken);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.match(created.body.token as string, /^rt_ro_[A-Za-z0-9_-]{43}$/);
  return {
    username,
    sessionToken,
    token: created.body.token as string,
    tokenId: created.body.id as string,
  };
}

/** Calls a proxy action with the member's session and asserts 200. */
export async function proxy(url: Target, member: TestMember, body: Record<string, unknown>) {
  const res = await post(url, "/api/proxy", body, member.sessionToken);
  assert.equal(res.status, 200, `${body.action}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A JSON-RPC tools/call body. */
export function toolCall(
  name: string,
  args: Record<string, unknown> = {},
  id: number | string = 1,
) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/** Columns that let every one of the eighteen tools run with the sandbox's test arguments. */
export const TEST_COLUMNS = [
  {
    key: "mood",
    label: "Mood",
    type: "scale",
    scale_min: 1,
    scale_max: 5,
    direction: "higher_better",
  },
  {
    key: "sleep_hours",
    label: "Sleep",
    type: "number",
    unit: "h",
    direction: "target",
    goal: { op: "at_least", value: 7, per: "day", times: null },
  },
  {
    key: "steps",
    label: "Steps",
    type: "integer",
    unit: "steps",
    direction: "higher_better",
    goal: { op: "at_least", value: 8000, per: "day", times: null },
    missing_policy: "breaks",
  },
  {
    key: "workout",
    label: "Workout",
    type: "boolean",
    direction: "higher_better",
    goal: { op: "true", value: null, per: "week", times: 3 },
    missing_policy: "breaks",
  },
  {
    key: "meditation_min",
    label: "Meditation",
    type: "duration_min",
    unit: "min",
    direction: "higher_better",
    goal: { op: "at_least", value: 10, per: "day", times: null },
    missing_policy: "breaks",
  },
  { key: "weight_kg", label: "Weight", type: "number", unit: "kg", direction: "lower_better" },
  {
    key: "water_l",
    label: "Water",
    type: "number",
    unit: "L",
    direction: "higher_better",
    goal: { op: "at_least", value: 2, per: "day", times: null },
    missing_policy: "breaks",
  },
  {
    key: "medication_taken",
    label: "Medication",
    type: "boolean",
    direction: "higher_better",
    goal: { op: "true", value: null, per: "day", times: null },
    missing_policy: "breaks",
  },
  {
    key: "resting_hr",
    label: "Resting HR",
    type: "integer",
    unit: "bpm",
    direction: "lower_better",
  },
] as const;

/** A deterministic year of values, as CSV, ending at `lastDate` (inclusive). */
export function yearOfCsv(lastDate: string, days = 365): string {
  const end = Date.parse(lastDate + "T00:00:00Z");
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const lines = [
    "date,mood,sleep_hours,steps,workout,meditation_min,weight_kg,water_l,medication_taken,resting_hr,note",
  ];
  for (let i = days - 1; i >= 0; i--) {
    const date = new Date(end - i * 86_400_000).toISOString().slice(0, 10);
    const sleep = (6 + rand() * 3).toFixed(1);
    const mood = Math.min(5, Math.max(1, Math.round(Number(sleep) - 4 + rand() * 2)));
    lines.push([
      date,
      rand() < 0.05 ? "" : mood,
      sleep,
      Math.round(5000 + rand() * 7000),
      rand() < 0.45,
      rand() < 0.1 ? "skip" : Math.round(rand() * 20),
      (80 - i / 60 + rand()).toFixed(1),
      (1.5 + rand()).toFixed(2),
      rand() < 0.9,
      Math.round(55 + rand() * 10),
      i % 30 === 0 ? '"felt ""great"", slept well"' : "",
    ].join(","));
  }
  return lines.join("\n") + "\n";
}

/** Creates the test columns and imports a year of data for a member. */
export async function seedYear(url: Target, member: TestMember, lastDate: string): Promise<void> {
  for (const column of TEST_COLUMNS) {
    await proxy(url, member, { action: "createColumn", ...column });
  }
  const report = await proxy(url, member, { action: "importRecord", csv: yearOfCsv(lastDate) });
  assert.equal(report.imported, 365);
}
