/**
 * The coach's runs through its due-time index (no queue): a burst of writes gives a bounded number
 * of runs; a process killed with runs due completes each of them exactly once after a restart; the tools
 * answer the same whatever the tier; a finding can be dismissed through /api/proxy.
 */

import assert from "node:assert/strict";
import { systemClock } from "../../lib/foundation/clock.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { type Member, registerMember } from "../../lib/accounts/accounts.ts";
import { loadConfig } from "../../lib/foundation/config.ts";
import { ColumnCreate, createColumn, saveEntry } from "../../lib/record/store.ts";
import type { StoredFindings } from "../../lib/record/types.ts";
import { valueAt } from "../../lib/coach/evidence.ts";
import { runCoach } from "../../lib/coach/run.ts";
import { setTier } from "../../lib/coach/tier.ts";
import {
  coachPoll,
  nextDailyAt,
  registerCoachCron,
  startCoachWorker,
} from "../../lib/coach/worker.ts";
import { makeApp, startServer } from "../_helpers.ts";
import { post, registerWithToken, seedYear, toolCall } from "./_members.ts";
import { signedUpBrowser } from "./_web.ts";
import { openLimitedKv } from "../_kv_limits.ts";

async function findings(kv: Deno.Kv, memberId: string): Promise<StoredFindings | null> {
  return (await kv.get<StoredFindings>(keys.coachFindings(memberId))).value;
}

async function waitFor(check: () => Promise<boolean>, what: string, seconds = 40) {
  for (let i = 0; i < seconds * 10; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A worker polling every 50 ms until `stop` aborts. */
function pollingWorker(kv: Deno.Kv, stop: AbortController, onOutcome?: (s: string) => void) {
  return startCoachWorker({
    kv,
    clock: systemClock,
    pollMs: 50,
    signal: stop.signal,
    onOutcome: (_id, o) => onOutcome?.(o.status),
  });
}

Deno.test("startCoachWorker() gives 100 writes in a burst a bounded number of coach runs", async () => {
  const kv = await openLimitedKv();
  const signedIn = await registerMember({ kv, clock: systemClock, passwordIterations: 1000 }, {
    username: "burst",
    password: "a long passphrase",
  });
  const memberId = signedIn.memberId;
  const store = { kv, clock: systemClock, coachDebounceMs: 1500 };
  await createColumn(
    store,
    memberId,
    ColumnCreate.parse({ key: "steps", label: "Steps", type: "integer" }),
  );
  const outcomes: string[] = [];
  const stop = new AbortController();
  const worker = pollingWorker(kv, stop, (s) => outcomes.push(s));
  const today = new Date().toISOString().slice(0, 10);
  for (let i = 0; i < 100; i++) {
    await saveEntry({ ctx: store, memberId: memberId, date: today, values: { steps: 1000 + i } });
  }
  const version = async () => (await kv.get<Deno.KvU64>(keys.recordVersion(memberId))).value!.value;
  await waitFor(async () => {
    const f = await findings(kv, memberId);
    return f?.analysed?.startsWith(`${await version()}:`) ?? false;
  }, "the coach to analyse the last version");
  await new Promise((r) => setTimeout(r, 2000)); // any straggler run would run by now
  const runs = (await findings(kv, memberId))!.runs;
  assert.ok(runs >= 1 && runs <= 3, `101 writes gave ${runs} coach runs (${outcomes.join(",")})`);
  // every due key of the burst is gone but the member's next daily one
  const left = [];
  for await (const e of kv.list({ prefix: keys.coachDueAtAll() })) left.push(e.key);
  assert.deepEqual(left, [keys.coachDueAt(nextDailyAt(Date.now()), memberId)]);
  stop.abort();
  await worker;
  kv.close();
});

Deno.test("startCoachWorker() runs a member once its due time passes, and again after a write, with nothing enqueued", async () => {
  const kv = await openLimitedKv();
  const { memberId } = await registerMember({ kv, clock: systemClock, passwordIterations: 1000 }, {
    username: "remote",
    password: "a long passphrase",
  });
  const store = { kv, clock: systemClock, coachDebounceMs: 0 };
  await createColumn(
    store,
    memberId,
    ColumnCreate.parse({ key: "steps", label: "Steps", type: "integer" }),
  );
  const today = new Date().toISOString().slice(0, 10);
  await saveEntry({ ctx: store, memberId: memberId, date: today, values: { steps: 4000 } });
  const stop = new AbortController();
  const worker = pollingWorker(kv, stop);
  // nothing may be enqueued on any KV: a message here would fail the write over KV Connect
  const stray: unknown[] = [];
  const listening = kv.listenQueue((m) => void stray.push(m));
  try {
    await waitFor(async () => (await findings(kv, memberId))?.analysed != null, "a polled run");
    await new Promise((r) => setTimeout(r, 300)); // several more polls: nothing new to analyse
    assert.equal((await findings(kv, memberId))!.runs, 1);
    await saveEntry({ ctx: store, memberId: memberId, date: today, values: { steps: 5000 } });
    await waitFor(async () => (await findings(kv, memberId))!.runs === 2, "the run after a write");
    assert.deepEqual(stray, []);
  } finally {
    stop.abort();
    await worker;
    kv.close();
    await listening;
  }
});

Deno.test("coachPoll() runs a member whose daily key is due, and an idle member's key runs nothing", async () => {
  const kv = await openLimitedKv();
  const clock = systemClock;
  const { memberId } = await registerMember({ kv, clock, passwordIterations: 1000 }, {
    username: "daily",
    password: "a long passphrase",
  });
  const idle = await registerMember({ kv, clock, passwordIterations: 1000 }, {
    username: "idle",
    password: "a long passphrase",
  });
  // active = wrote within 31 days (coach_due present); its daily key came due a second ago
  await kv.set(keys.coachDue(memberId), { dueAt: clock() - 3_600_000 });
  await kv.set(keys.coachDueAt(clock() - 1000, memberId), true);
  // the idle member's coach_due expired: its old key is deleted without a run
  await kv.set(keys.coachDueAt(clock() - 1000, idle.memberId), true);
  try {
    const report = await coachPoll({ kv, clock });
    assert.deepEqual(report, { leased: true, seen: 2 });
    assert.equal((await findings(kv, memberId))!.runs, 1);
    assert.equal(await findings(kv, idle.memberId), null, "a member without recent writes");
    const left = [];
    for await (const e of kv.list({ prefix: keys.coachDueAtAll() })) left.push(e.key);
    assert.deepEqual(left, [keys.coachDueAt(nextDailyAt(clock()), memberId)]);
    assert.deepEqual(await coachPoll({ kv, clock }), { leased: true, seen: 0 });
  } finally {
    kv.close();
  }
});

Deno.test("POST /api/mcp and /api/proxy for a free and a paid member", async (t) => {
  await using server = await startServer();
  const alice = await registerWithToken(server.url, "alice");
  await seedYear(server.url, alice, "2026-11-21");
  const calls: [string, Record<string, unknown>][] = [
    ["list_columns", {}],
    ["get_overview", { period: "week" }],
    ["get_entries", { limit: 7 }],
    ["get_aggregates", { metric: "steps" }],
    ["get_summary_stats", { metric: "mood" }],
    ["get_streak", { metric: "meditation_min" }],
    ["get_habit_strength", { metric: "medication_taken" }],
    ["get_goal_progress", {}],
    ["get_personal_bests", { metric: "steps" }],
    ["get_trend", { metric: "weight_kg" }],
    ["compare_periods", { metric: "steps", a_start: "2026-10-15", a_end: "2026-11-15" }],
    ["get_weekday_pattern", { metric: "mood" }],
    ["get_correlation", { metric_a: "sleep_hours", metric_b: "mood", lag_days: 1 }],
    ["find_correlations", { metric: "mood" }],
    ["get_factor_effect", { factor: "workout", outcome: "mood" }],
    ["get_anomalies", {}],
    ["get_data_coverage", { days: 90 }],
    ["get_coach_insights", {}],
  ];
  const answers = async () => {
    const out: string[] = [];
    for (const [name, args] of calls) {
      const res = await post(server.url, "/api/mcp", toolCall(name, args), alice.token);
      assert.equal(res.status, 200, name);
      out.push(JSON.stringify(res.body));
    }
    return out;
  };
  const free = await answers();
  await setTier(server.kv, server.clock, { username: "alice", tier: "paid", until: "2027-12-31" });
  const paid = await answers();
  await t.step("POST /api/mcp: the 18 tools answer byte-identically for both tiers", () => {
    assert.equal(calls.length, 18);
    assert.deepEqual(paid, free);
  });
  await t.step("POST /api/proxy dismissInsight removes a stored finding", async () => {
    const memberId = (await server.kv.get<string>(keys.username("alice"))).value!;
    const run = await runCoach(
      { kv: server.kv, clock: server.clock, owner: "t" },
      memberId,
    );
    assert.equal(run.status, "ran");
    const listed = await post(
      server.url,
      "/api/mcp",
      toolCall("get_coach_insights", { limit: 50 }),
      alice.token,
    );
    // deno-lint-ignore no-explicit-any
    const insights = (listed.body as any).result.structuredContent.insights;
    assert.ok(insights.length > 0);
    // every stored finding's evidence call, made by the member's agent, reproduces its numbers
    for (const insight of insights) {
      const { tool, arguments: args, key_numbers } = insight.evidence;
      const replay = await post(server.url, "/api/mcp", toolCall(tool, args), alice.token);
      // deno-lint-ignore no-explicit-any
      const result = (replay.body as any).result.structuredContent;
      for (const [path, value] of Object.entries(key_numbers)) {
        assert.deepEqual(valueAt(result, path), value, `${insight.id} ${tool} ${path}`);
      }
      assert.equal(insight.depth, "paid");
    }
    const id = insights[0].id;
    const res = await post(
      server.url,
      "/api/proxy",
      { action: "dismissInsight", id },
      alice.sessionToken,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { dismissed: id });
    const again = await post(
      server.url,
      "/api/proxy",
      { action: "dismissInsight", id },
      alice.sessionToken,
    );
    assert.equal(again.status, 404);
    const after = await post(
      server.url,
      "/api/mcp",
      toolCall("get_coach_insights", { limit: 50 }),
      alice.token,
    );
    // deno-lint-ignore no-explicit-any
    assert.ok(!(after.body as any).result.structuredContent.insights.some((i: any) => i.id === id));
    const readOnly = await post(
      server.url,
      "/api/proxy",
      { action: "dismissInsight", id },
      alice.token,
    );
    assert.equal(readOnly.status, 403);
  });
});

Deno.test("coach jobs: main.ts killed (SIGKILL) with coach runs due completes each exactly once after a restart", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite3`;
  const port = 18400 + Math.floor(Math.random() * 500);
  const env = {
    KV_PATH: kvPath,
    PORT: String(port),
    COACH_DEBOUNCE_MINUTES: "0.05",
    COACH_POLL_SECONDS: "1",
    DEFAULT_TIER: "paid",
  };
  const start = () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--unstable-kv", new URL("../../main.ts", import.meta.url).pathname],
      env,
      stdout: "null",
      stderr: "null",
    }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const up = () =>
    waitFor(async () => {
      try {
        await (await fetch(`${url}/api/openapi.json`)).body?.cancel();
        return true;
      } catch {
        return false;
      }
    }, "the server");
  let child = start();
  await up();
  const members = [];
  for (const name of ["kill1", "kill2"]) {
    const m = await registerWithToken(url, name);
    await post(url, "/api/proxy", {
      action: "createColumn",
      key: "steps",
      label: "Steps",
      type: "integer",
    }, m.sessionToken);
    for (let i = 0; i < 5; i++) {
      const date = new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10);
      await post(
        url,
        "/api/proxy",
        { action: "saveEntry", date, values: { steps: 5000 + i } },
        m.sessionToken,
      );
    }
    members.push(m);
  }
  child.kill("SIGKILL"); // runs are due 3 s after the last write: none has run
  await child.status;
  child = start();
  const kv = await Deno.openKv(kvPath);
  try {
    const ids: string[] = [];
    for (const m of members) ids.push((await kv.get<string>(keys.username(m.username)))!.value!);
    await waitFor(
      async () => {
        for (const id of ids) if (!(await findings(kv, id))?.analysed) return false;
        return true;
      },
      "both members' jobs after the restart",
      60,
    );
    await new Promise((r) => setTimeout(r, 3000));
    for (const id of ids) assert.equal((await findings(kv, id))!.runs, 1, `member ${id}`);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /api/auth register: DEFAULT_TIER decides a new member's tier", async (t) => {
  for (const tier of ["free", "paid"] as const) {
    await t.step(`DEFAULT_TIER=${tier}`, async () => {
      await using h = await makeApp({ config: { defaultTier: tier } });
      const res = await h.request("/api/auth", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ action: "register", username: "newbie", password: "a long pass" }),
      });
      assert.equal(res.status, 201);
      const { memberId } = await res.json();
      const member = (await h.kv.get<Member>(keys.member(memberId))).value!;
      assert.deepEqual([member.membership, member.paidUntil], [tier, null]);
      // The web app's sign-up page stamps the same tier (one account context for every path).
      await signedUpBrowser(h, "webbie");
      const webId = (await h.kv.get<string>(keys.username("webbie"))).value!;
      const webMember = (await h.kv.get<Member>(keys.member(webId))).value!;
      assert.equal(webMember.membership, tier);
    });
  }
  assert.equal(loadConfig({ DEFAULT_TIER: "paid" }).defaultTier, "paid");
  assert.equal(loadConfig({}).defaultTier, "free");
  assert.throws(() => loadConfig({ DEFAULT_TIER: "gold" }), /DEFAULT_TIER/);
  assert.equal(loadConfig({ COACH_DEBOUNCE_MINUTES: "2.5" }).coachDebounceMs, 150_000);
  assert.throws(() => loadConfig({ COACH_DEBOUNCE_MINUTES: "-1" }), /COACH_DEBOUNCE_MINUTES/);
  assert.equal(loadConfig({}).coachPollMs, 30_000);
  assert.equal(loadConfig({ COACH_POLL_SECONDS: "5" }).coachPollMs, 5_000);
  for (const bad of ["0", "abc", "3601", "-2"]) {
    assert.throws(() => loadConfig({ COACH_POLL_SECONDS: bad }), /COACH_POLL_SECONDS must be/);
  }
});

Deno.test("registerCoachCron() registers the poll with Deno.cron only on Deploy, in whole minutes", async () => {
  const poll = () => Promise.resolve();
  // Deno.cron needs --unstable-cron outside Deploy: absent here, as in every test process
  assert.equal(typeof (Deno as unknown as { cron?: unknown }).cron, "undefined");
  assert.equal(registerCoachCron({ deploymentId: "d1", pollMs: 30_000 }, poll), false);
  const registered: [string, string][] = [];
  let polled = 0;
  Object.defineProperty(Deno, "cron", {
    configurable: true,
    value: (name: string, schedule: string, handler: () => Promise<void>) => {
      registered.push([name, schedule]);
      return handler();
    },
  });
  try {
    const count = () => Promise.resolve(void polled++);
    assert.equal(registerCoachCron({ deploymentId: undefined, pollMs: 30_000 }, count), false);
    assert.equal(registerCoachCron({ deploymentId: "d1", pollMs: 30_000 }, count), true);
    assert.equal(registerCoachCron({ deploymentId: "d1", pollMs: 300_000 }, count), true);
    assert.equal(registerCoachCron({ deploymentId: "d1", pollMs: 3_600_000 }, count), true);
    await new Promise((r) => setTimeout(r, 0));
    assert.deepEqual(registered, [
      ["coach poll", "*/1 * * * *"],
      ["coach poll", "*/5 * * * *"],
      ["coach poll", "0 * * * *"],
    ]);
    assert.equal(polled, 3);
  } finally {
    delete (Deno as unknown as { cron?: unknown }).cron;
  }
});
