/**
 * Durability: a real `deno run main.ts` subprocess on a KV file takes a load of saveEntry calls, is
 * killed with SIGKILL mid-load, and restarted on the same file: every acknowledged write is there.
 */

import assert from "node:assert/strict";
import { post } from "./_members.ts";

const ROOT = new URL("../../", import.meta.url);

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function startMain(port: number, kvPath: string): Promise<Deno.ChildProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "main.ts"],
    cwd: ROOT,
    env: { PORT: String(port), KV_PATH: kvPath, RATE_LIMIT_MULTIPLIER: "1000" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  for (let i = 0; i < 200; i++) {
    try {
      const res = await post(`http://127.0.0.1:${port}`, "/api/proxy", { action: "healthCheck" });
      if (res.status === 200) return child;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  child.kill("SIGKILL");
  throw new Error("main.ts did not start");
}

Deno.test("durability: every acknowledged saveEntry survives SIGKILL and restart", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite3`;
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  let child = await startMain(port, kvPath);
  try {
    const reg = await post(url, "/api/auth", {
      action: "register",
      username: "durable",
      password: "a long passphrase",
    });
    assert.equal(reg.status, 201);
    const session = reg.body.sessionToken as string;
    assert.equal(
      (await post(url, "/api/proxy", {
        action: "createColumn",
        key: "steps",
        label: "Steps",
        type: "integer",
      }, session)).status,
      200,
    );

    const yesterday = Date.now() - 2 * 86_400_000;
    const acknowledged = new Map<string, number>();
    let next = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const i = next++;
        const date = new Date(yesterday - i * 86_400_000).toISOString().slice(0, 10);
        try {
          const res = await post(url, "/api/proxy", {
            action: "saveEntry",
            date,
            values: { steps: i },
          }, session);
          if (res.status === 200) acknowledged.set(date, i);
        } catch {
          return; // the server died mid-request: not acknowledged
        }
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    // Kill once enough writes are acknowledged (not after a fixed time: the machine may be slow).
    for (let waited = 0; acknowledged.size <= 20 && waited < 30_000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGKILL");
    stop = true;
    await Promise.all(workers);
    await child.status;
    assert.ok(
      acknowledged.size > 20,
      `only ${acknowledged.size} writes were acknowledged before the kill`,
    );

    child = await startMain(port, kvPath);
    const exported = await post(
      url,
      "/api/proxy",
      { action: "exportRecord", format: "json" },
      session,
    );
    assert.equal(exported.status, 200);
    const stored = new Map(
      (exported.body.entries as { date: string; values: { steps: number } }[]).map((
        e,
      ) => [e.date, e.values.steps]),
    );
    for (const [date, steps] of acknowledged) {
      assert.equal(stored.get(date), steps, `acknowledged write of ${date} lost`);
    }
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited: keep the assertion that failed, not this.
    }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});
