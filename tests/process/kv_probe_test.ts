/**
 * `deno task kv:probe` (scripts/kv_probe.ts, issue #21) run as the operator runs it, against the
 * KV Connect test server through Deno's real remote client, with 10 ms added to every answer: the
 * numbers it prints must show that latency, so they are round trips and not local work.
 */

import assert from "node:assert/strict";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { kvConnectEnv, openKvConnect, startKvConnectServer } from "../kv_connect/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const deno = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
const PROBE_ARGS: string[] = (deno.tasks["kv:probe"] as string).split(" ").slice(1);
const LATENCY_MS = 10;

async function runProbe(env: Record<string, string>, ...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...PROBE_ARGS, ...args],
    cwd: ROOT,
    env: { DENO_NO_UPDATE_CHECK: "1", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("scripts: deno task kv:probe", async (t) => {
  await using server = await startKvConnectServer({ latencyMs: LATENCY_MS });
  const env = { ...kvConnectEnv(server), PATH: Deno.env.get("PATH") ?? "" };

  await t.step(
    "prints where it ran and each round trip, no faster than the injected latency",
    async () => {
      const r = await runProbe(env, "--samples", "20", "--seconds", "1", "--writers", "4");
      assert.equal(r.code, 0, r.stderr);
      const host = new URL(server.url).host;
      assert.match(r.stdout, new RegExp(`^KV probe of ${host.replace(/\./g, "\\.")}$`, "m"));
      assert.match(r.stdout, new RegExp(`from: Deno ${Deno.version.deno} \\(`));
      assert.match(r.stdout, new RegExp(new Date().toISOString().slice(0, 10)));
      for (
        const op of ["get", "getMany \\(10 keys\\)", "list page \\(100 keys\\)", "atomic commit"]
      ) {
        const m = new RegExp(`^  ${op} +20 +([\\d.]+) +([\\d.]+)$`, "m").exec(r.stdout);
        assert.ok(m, `${op} in\n${r.stdout}`);
        assert.ok(Number(m[1]) >= LATENCY_MS, `${op} p50 ${m[1]} ms`);
        assert.ok(Number(m[2]) >= Number(m[1]), `${op} p99 ${m[2]} ≥ p50 ${m[1]}`);
      }
      const w = /write throughput: (\d+) commits\/s \(4 concurrent writers, 1 s\)/.exec(r.stdout);
      assert.ok(w, r.stdout);
      // each writer waits a round trip per commit: at most 4 × 1000 / 10 a second
      assert.ok(Number(w[1]) > 0 && Number(w[1]) <= 4 * 1000 / LATENCY_MS, `${w[1]} commits/s`);
    },
  );

  await t.step("--json gives the same report as data", async () => {
    const r = await runProbe(env, "--samples", "5", "--seconds", "1", "--writers", "2", "--json");
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.host, new URL(server.url).host);
    assert.deepEqual(
      report.timings.map((x: { operation: string }) => x.operation),
      ["get", "getMany (10 keys)", "list page (100 keys)", "atomic commit"],
    );
  });

  await t.step("leaves none of its keys behind", async () => {
    const kv = await openKvConnect(server);
    try {
      assert.deepEqual(await Array.fromAsync(kv.list({ prefix: ["kv_probe"] })), []);
      assert.equal(keys.kvProbeOf("r", "read")[0], "kv_probe");
    } finally {
      kv.close();
    }
  });

  await t.step("an unreachable KV ends it within the deadline with a message", async () => {
    server.setOutage(true);
    const started = performance.now();
    const r = await runProbe({ ...env, KV_DEADLINE_MS: "300" }, "--samples", "5");
    server.setOutage(false);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: the probe of .* stopped: /m);
    assert.doesNotMatch(r.stderr, /\bat .*\.ts:\d+/);
    assert.ok(performance.now() - started < 15_000, "ended, not hung");
  });

  await t.step("without KV_URL or a token it says what is missing", async () => {
    const none = await runProbe({ PATH: env.PATH });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^error: KV_URL must name a remote KV .*it is not set$/m);
    const file = await runProbe({ PATH: env.PATH, KV_URL: "./data/kv.sqlite3" });
    assert.match(file.stderr, /KV_URL must name a remote KV .*got "\.\/data\/kv\.sqlite3"/);
    const noToken = await runProbe({ PATH: env.PATH, KV_URL: server.url });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /^error: DENO_KV_ACCESS_TOKEN is not set/m);
  });
});
