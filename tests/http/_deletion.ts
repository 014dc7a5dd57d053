/** What the deletion tests on the real-size fixtures share: scans of the whole KV, and the deletion. */

import assert from "node:assert/strict";
import type { TestApp } from "../_helpers.ts";
import type { FixtureMember } from "../_big_instance.ts";
import { post } from "./_members.ts";

/** Every key whose key parts or value name the member (or its username claim). */
export async function keysOf(kv: Deno.Kv, member: FixtureMember): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    const text = JSON.stringify(e.key) +
      JSON.stringify(e.value, (_, v) => typeof v === "bigint" ? String(v) : v);
    if (text.includes(member.memberId) || text.includes(member.username.toLowerCase())) {
      out.push(JSON.stringify(e.key));
    }
  }
  return out;
}

/** Every key and its versionstamp, except rate-limit counters (requests count themselves). */
export async function snapshot(kv: Deno.Kv): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of kv.list({ prefix: [] })) {
    if (e.key[0] !== "rate_limit") out.set(JSON.stringify(e.key), e.versionstamp);
  }
  return out;
}

export async function deleteThroughApi(t: TestApp, member: FixtureMember): Promise<void> {
  const res = await post(t, "/api/auth", {
    action: "deleteAccount",
    confirmUsername: member.username,
  }, member.sessionToken);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}
