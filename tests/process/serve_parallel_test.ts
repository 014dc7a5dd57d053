/**
 * The README's "Several instances" commands, executed as written (issue #9 item 4): read from
 * README.md so the documentation cannot drift from what works. `deno serve --parallel` starts,
 * answers from its workers, and on SIGTERM every worker flushes its counters before the exit;
 * separate `deno run` processes on one KV file act as one service.
 */

import assert from "node:assert/strict";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { startProcesses } from "../_processes.ts";
import { post, registerWithToken } from "../http/_members.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** One shell line of the README: leading `NAME=value` assignments, then `deno` and its args. */
interface Command {
  env: Record<string, string>;
  args: string[];
}

function parseLine(line: string): Command {
  const words = line.replace(/\s*&\s*$/, "").trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split("=");
    env[name] = value.join("=");
  }
  assert.equal(words.shift(), "deno", line);
  return { env, args: words };
}

/** The shell lines of the README's "Several instances" section that start the service. */
function readmeCommands(): { parallel: Command; separate: Command[] } {
  const readme = Deno.readTextFileSync(new URL("../../README.md", import.meta.url));
  const start = readme.indexOf("### Several instances");
  assert.ok(start >= 0, 'README.md has a "Several instances" section');
  const section = readme.slice(start, readme.indexOf("\n## ", start));
  const lines = [...section.matchAll(/```bash\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1].trim().split("\n"));
  const parallel = lines.filter((l) => / deno serve .*--parallel/.test(l)).map(parseLine);
  const separate = lines.filter((l) => / deno run /.test(l)).map(parseLine);
  assert.equal(parallel.length, 1, lines.join("\n"));
  assert.ok(separate.length >= 2, lines.join("\n"));
  return { parallel: parallel[0], separate };
}

/** The README's args with its port replaced by `port` and `main.ts` by its absolute path. */
function withPort(args: string[], port: number): string[] {
  const i = args.indexOf("--port");
  assert.ok(i >= 0, "the deno serve command names its port");
  const out = args.map((a) => (a === "main.ts" ? MAIN : a));
  out[i + 1] = String(port);
  return out;
}

/** Sum of every `public` rate-limit window in the KV file (what the workers flushed). */
async function publicCount(kvPath: string): Promise<number> {
  const kv = await Deno.openKv(kvPath);
  try {
    let total = 0;
    for await (const e of kv.list<Deno.KvU64>({ prefix: [...keys.rateLimitPrefix(), "public"] })) {
      total += Number(e.value.value);
    }
    return total;
  } finally {
    kv.close();
  }
}

Deno.test("README: deno serve --parallel", async (t) => {
  const { parallel } = readmeCommands();
  // BASE_URL is the only environment the README sets; the helper sets it to the real URL.
  assert.deepEqual(Object.keys(parallel.env).filter((k) => k !== "BASE_URL"), []);
  // Our own KV file, so it can be read after the process has stopped.
  const dir = await Deno.makeTempDir({ prefix: "rt-serve-" });
  const kvPath = `${dir}/kv.sqlite3`;
  await using _cleanup = { [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
  await using procs = await startProcesses({
    count: 1,
    kvPath,
    args: (port) => withPort(parallel.args, port),
  });
  const [url] = procs.urls;
  const pages = 40;

  await t.step("starts its workers on one port and answers", async () => {
    assert.match(procs.output(0), /deno serve: Listening on http:\/\/[^ ]+ with \d+ threads/);
    assert.doesNotMatch(procs.output(0), /AddrInUse|error/i, procs.output(0));
    for (let i = 0; i < pages; i++) {
      const res = await fetch(`${url}/`);
      await res.body?.cancel();
      assert.equal(res.status, 200);
    }
  });

  await t.step("a member registered on one worker is known to every worker", async () => {
    const member = await registerWithToken(url, "parallel");
    for (let i = 0; i < 10; i++) {
      const s = await post(
        url,
        "/api/auth",
        { action: "session" },
        member.sessionToken,
      );
      assert.equal(s.status, 200, JSON.stringify(s.body));
    }
  });

  await t.step("SIGTERM: every worker flushes its counters, then the process exits 0", async () => {
    await procs.stop();
    const status = await procs.status(0);
    assert.equal(status.code, 0, procs.output(0));
    assert.equal(await publicCount(kvPath), pages, "every GET / was counted in KV");
  });
});

Deno.test("README: separate processes on one KV file", async (t) => {
  const { separate } = readmeCommands();
  for (const c of separate) {
    // The helper runs exactly `deno run -A --unstable-kv main.ts` with PORT and BASE_URL set.
    assert.deepEqual(c.args, ["run", "-A", "--unstable-kv", "main.ts"]);
    assert.deepEqual(Object.keys(c.env).sort(), ["BASE_URL", "PORT"]);
  }
  // Both lines carry the same BASE_URL: one public URL for every instance.
  assert.equal(new Set(separate.map((c) => c.env.BASE_URL)).size, 1);
  await using procs = await startProcesses({ count: separate.length, baseUrl: "shared" });
  const [a, b] = procs.urls;

  await t.step("a session made on one process works on the other", async () => {
    const member = await registerWithToken(a, "separate");
    const s = await post(b, "/api/auth", { action: "session" }, member.sessionToken);
    assert.equal(s.status, 200, JSON.stringify(s.body));
  });

  await t.step("SIGTERM: each process flushes and exits 0", async () => {
    await procs.stop();
    for (let i = 0; i < separate.length; i++) {
      assert.equal((await procs.status(i)).code, 0, procs.output(i));
    }
  });
});
