/**
 * Round trips as a budget (issue #21, item 5). On a remote KV every strong read is one request to
 * the primary (7 ms in region, ~95 ms from Frankfurt to us-east4), so what a request waits for is
 * the depth of its KV calls. The app here runs on a KV that counts them (tests/_kv_round_trips.ts,
 * whose counts tests/kv_connect/round_trips_test.ts shows equal the requests Deno's KV Connect
 * client sends); the rate limiter gets a counting KV of its own, so its batched commits and
 * background reads are counted apart, as the issue asks.
 *
 * Budgets, on the three-year member of tests/_big_instance.ts (1,095 days, twelve columns):
 * a cached authenticated `tools/call` ≤ 1 read round trip; a cold record ≤ 3 sequential round
 * trips; `saveEntry` ≤ 2 reads + 1 commit; a page load after a save ≤ 3; an import preview ≤ 10.
 */

import assert from "node:assert/strict";
import { createApp } from "../../main.ts";
import { testConfig } from "../../lib/foundation/config.ts";
import { manualClock } from "../../lib/foundation/clock.ts";
import { RateLimiter } from "../../lib/policy/rate_limit.ts";
import { SESSION_COOKIE } from "../../lib/http/kernel/auth.ts";
import { MemberRecords, readRecordBase } from "../../lib/record/member_records.ts";
import { saveEntry } from "../../lib/record/store.ts";
import { buildThreeYearMember, FIXTURE_NOW, type ThreeYearMember } from "../_big_instance.ts";
import { type CountingKv, countRoundTrips, type RoundTrips } from "../_kv_round_trips.ts";
import { openLimitedKv } from "../_kv_limits.ts";
import { post, toolCall } from "./_members.ts";

interface Bench extends AsyncDisposable {
  request(path: string, init?: RequestInit): Promise<Response>;
  kv: Deno.Kv;
  counting: CountingKv;
  limiter: CountingKv;
  clock: ReturnType<typeof manualClock>;
  member: ThreeYearMember;
}

/** The app on a counting KV (its limiter on another), with the three-year member written. */
async function bench(): Promise<Bench> {
  const kv = await openLimitedKv();
  const clock = manualClock(FIXTURE_NOW);
  const member = await buildThreeYearMember(kv, { clock });
  const counting = countRoundTrips(kv);
  const limiter = countRoundTrips(kv);
  const config = testConfig();
  const app = createApp({
    kv: counting.kv,
    clock,
    config,
    rateLimiter: new RateLimiter(limiter.kv, clock, { multiplier: config.rateLimitMultiplier }),
  });
  return {
    request: (path, init) => Promise.resolve(app.request(path, init)),
    kv,
    counting,
    limiter,
    clock,
    member,
    async [Symbol.asyncDispose]() {
      await app.close();
      kv.close();
    },
  };
}

/** The round trips of `fn`, counted on the app's KV; `fn` must succeed. */
async function tripsOf(b: Bench, label: string, fn: () => Promise<unknown>): Promise<RoundTrips> {
  b.counting.reset();
  await fn();
  const trips = b.counting.counts();
  console.log(
    `${label}: ${trips.sequential} sequential (${trips.sequentialReads} of reads), ` +
      `${trips.reads} reads, ${trips.commits} commits`,
  );
  return trips;
}

function explain(trips: RoundTrips): string {
  return trips.log.join("\n");
}

async function mcp(b: Bench, name: string, args: Record<string, unknown> = {}) {
  const res = await post(b, "/api/mcp", toolCall(name, args), b.member.accessToken);
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  assert.notEqual((res.body.result as { isError?: boolean }).isError, true);
}

async function proxy(b: Bench, body: Record<string, unknown>) {
  const res = await post(b, "/api/proxy", body, b.member.sessionToken);
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  return res.body;
}

/** A save through `POST /api/proxy`, as the member's app does it. */
function saveToday(b: Bench, steps: number) {
  return proxy(b, { action: "saveEntry", date: b.member.lastDay, values: { steps } });
}

async function page(b: Bench, path: string): Promise<void> {
  const res = await b.request(path, {
    headers: { cookie: `${SESSION_COOKIE}=${b.member.sessionToken}` },
  });
  const html = await res.text();
  assert.equal(res.status, 200, html.slice(0, 300));
}

Deno.test("round trips: a cached tools/call reads once; the limiter's commits are its own", async () => {
  await using b = await bench();
  await mcp(b, "list_columns");
  b.clock.advance(1000); // a new second: the MCP result cache misses, the record cache holds
  await mcp(b, "list_columns");
  b.clock.advance(1000);
  b.limiter.reset();
  const trips = await tripsOf(b, "cached tools/call", () => mcp(b, "get_data_coverage"));
  assert.ok(trips.sequentialReads <= 1 && trips.reads <= 1, explain(trips));
  assert.equal(trips.commits, 0, explain(trips));
});

Deno.test("round trips: the first tools/call after a write loads the three-year record in ≤ 3 sequential round trips", async () => {
  await using b = await bench();
  await mcp(b, "list_columns");
  await saveEntry({
    ctx: { kv: b.kv, clock: b.clock },
    memberId: b.member.memberId,
    date: b.member.lastDay,
    values: { steps: 4321 },
  });
  b.clock.advance(1000);
  const trips = await tripsOf(b, "cold tools/call", () => mcp(b, "get_data_coverage"));
  assert.ok(trips.sequential <= 3, explain(trips));
  const records = new MemberRecords(b.counting.kv, b.clock);
  const load = await tripsOf(b, "cold record load", () => records.load(b.member.memberId));
  assert.ok(load.sequential <= 3, explain(load));
});

Deno.test("round trips: saveEntry reads at most twice and commits once", async () => {
  await using b = await bench();
  const ctx = { kv: b.counting.kv, clock: b.clock };
  const trips = await tripsOf(b, "saveEntry", () =>
    saveEntry({
      ctx,
      memberId: b.member.memberId,
      date: b.member.lastDay,
      values: { steps: 1234 },
      note: "walked",
    }));
  assert.ok(trips.reads <= 2 && trips.commits === 1, explain(trips));
  assert.ok(trips.sequential <= 3, explain(trips));
  await saveToday(b, 1); // the session's first use on this instance
  const api = await tripsOf(b, "saveEntry over /api/proxy", () => saveToday(b, 2345));
  assert.ok(api.reads <= 2 && api.commits === 1, explain(api));
  assert.ok(api.sequential <= 3, explain(api));
});

Deno.test("round trips: a page load after a save is ≤ 3 sequential round trips", async () => {
  await using b = await bench();
  await page(b, "/app");
  await saveToday(b, 3456);
  const today = await tripsOf(b, "GET /app after a save", () => page(b, "/app"));
  assert.ok(today.sequential <= 3, explain(today));
  await saveToday(b, 4567);
  const history = await tripsOf(b, "GET /app/history after a save", () => page(b, "/app/history"));
  assert.ok(history.sequential <= 3, explain(history));
});

Deno.test("round trips: a first visit to Today, its session and record new to the instance, is ≤ 4 sequential round trips", async () => {
  await using b = await bench();
  // the record's snapshot exists (a visit on another instance wrote it); this one has seen nothing
  await readRecordBase(b.kv, b.member.memberId);
  const first = await tripsOf(b, "GET /app, first visit", () => page(b, "/app"));
  // the session; the session, member and record version in one batch; the record's head; the
  // rest of its snapshot (this member's journals fill more parts than the head reads). It was six:
  // the member and the version apart, and the version again for Today's habit list.
  assert.ok(first.sequential <= 4, explain(first));
  const again = await tripsOf(b, "GET /app, second visit", () => page(b, "/app"));
  assert.ok(again.sequential <= 1, explain(again));
});

Deno.test("round trips: a three-year import preview is ≤ 10 sequential round trips", async () => {
  await using b = await bench();
  const csv = (await proxy(b, { action: "exportRecord", format: "csv" })).csv as string;
  const trips = await tripsOf(
    b,
    "three-year import preview",
    () => proxy(b, { action: "importRecord", format: "routine-tracker", csv, dryRun: true }),
  );
  assert.ok(trips.sequential <= 10, explain(trips));
  assert.equal(trips.commits, 0, explain(trips));
});
