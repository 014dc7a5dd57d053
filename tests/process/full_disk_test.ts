/**
 * A full disk, for real (issue #19 item 8): a real `main.ts` process keeps its KV on a small tmpfs
 * this test mounts (root; CI runs as root), the test fills the rest of it, and then every write —
 * REST, sign-up and sign-in pages, registration — answers 507 `storage_full` with a plain message,
 * one log line each and a metric, never 500 or a stack; reads keep working; freeing the space
 * lets writes through again with no restart. Without the right to mount, the test is skipped
 * with a message (tests/http/full_disk_test.ts checks the same mapping in process everywhere).
 */

import assert from "node:assert/strict";
import { startProcesses } from "../_processes.ts";
import { post, registerWithToken } from "../http/_members.ts";
import { parseExposition } from "./_exposition.ts";

const METRICS_TOKEN = "full-disk-operator-token-0123";

/** Mounts a 4 MiB tmpfs at a fresh temp dir; null when this sandbox may not mount. */
async function smallDisk(): Promise<{ dir: string; unmount(): Promise<void> } | null> {
  const dir = await Deno.makeTempDir({ prefix: "rt-full-disk-" });
  const run = (cmd: string, ...args: string[]) =>
    new Deno.Command(cmd, { args, stdout: "null", stderr: "piped" }).output();
  const mounted = await run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir)
    .catch(() => null);
  if (!mounted?.success) {
    await Deno.remove(dir);
    return null;
  }
  return {
    dir,
    async unmount() {
      await run("umount", dir);
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Writes zeros into `path` until the file system refuses (ENOSPC), then closes it. */
async function fillUp(path: string): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true });
  const chunk = new Uint8Array(16 * 1024);
  try {
    for (;;) await file.write(chunk);
  } catch (err) {
    if (!(err instanceof Error) || !/No space left/.test(err.message)) throw err;
  } finally {
    file.close();
  }
}

/** A form post as a browser without JavaScript sends it: our Origin, the pre-session cookie. */
async function pageForm(url: string, path: string, fields: Record<string, string>) {
  const page = await fetch(`${url}${path}`);
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0];
  await page.body?.cancel();
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: url, Cookie: cookie },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, type: res.headers.get("content-type"), html: await res.text() };
}

/** No stack frame, raw or inside a JSON log line (where its newline is the two characters `\n`). */
const noStack = (text: string) => assert.doesNotMatch(text, /(\n|\\n)\s+at \S.*:\d+:\d+/);

Deno.test("full disk: writes answer 507 storage_full on a really full file system, then recover", async (t) => {
  const disk = await smallDisk();
  if (!disk) {
    if (Deno.env.get("CI") === "true") throw new Error("CI must be able to mount a tmpfs (root)");
    console.warn("full disk test skipped: this sandbox may not mount a tmpfs (needs root)");
    return;
  }
  try {
    await using procs = await startProcesses({
      count: 1,
      kvPath: `${disk.dir}/kv.sqlite3`,
      env: { METRICS_TOKEN, LOG_FORMAT: "off" },
    });
    const url = procs.urls[0];
    const ada = await registerWithToken(url, "ada");
    const save = (day: string) =>
      post(
        url,
        "/api/proxy",
        { action: "saveEntry", date: day, values: { steps: 5 } },
        ada.sessionToken,
      );
    const column = await post(url, "/api/proxy", {
      action: "createColumn",
      key: "steps",
      label: "Steps",
      type: "integer",
    }, ada.sessionToken);
    assert.equal(column.status, 200, JSON.stringify(column.body));
    const logBefore = procs.output(0).length;
    await fillUp(`${disk.dir}/filler`);
    let refusedWrites = 0;

    await t.step("REST writes: 507 storage_full, a plain message, nothing saved", async () => {
      for (let i = 0; i < 5; i++) {
        const res = await post(url, "/api/proxy", {
          action: "saveEntry",
          date: "2026-11-20",
          values: { steps: 1000 + i },
          note: "x".repeat(1500),
        }, ada.sessionToken);
        assert.equal(res.status, 507, JSON.stringify(res.body));
        assert.equal(res.body.code, "storage_full");
        assert.match(res.body.error as string, /^The service's storage is full, so nothing was/);
        refusedWrites++;
      }
      const reg = await post(url, "/api/auth", {
        action: "register",
        username: "bea",
        password: "a long passphrase",
      });
      assert.equal(reg.status, 507, JSON.stringify(reg.body));
      assert.equal(reg.body.code, "storage_full");
      refusedWrites++;
    });
    await t.step("reads still work", async () => {
      const res = await post(url, "/api/proxy", {
        action: "getEntries",
        start: "2026-11-01",
        end: "2026-11-30",
      }, ada.token);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.entries, [], "the refused writes saved nothing");
    });
    await t.step("the sign-up and sign-in pages answer a 507 page, not a 500", async () => {
      const signUp = await pageForm(url, "/signup", {
        username: "cleo",
        password: "a long passphrase",
      });
      const signIn = await pageForm(url, "/signin", {
        username: "ada",
        password: "a long passphrase",
      });
      for (const page of [signUp, signIn]) {
        assert.equal(page.status, 507, page.html.slice(0, 300));
        assert.match(page.type ?? "", /^text\/html/);
        assert.match(page.html, /The service&#39;s storage is full|The service's storage is full/);
        noStack(page.html);
        refusedWrites++;
      }
    });
    await t.step("one log line per refused write, no stack; counted in /metrics", async () => {
      const log = procs.output(0).slice(logBefore);
      noStack(log);
      const lines = log.split("\n").filter((l) => l.includes("KV storage full"));
      assert.ok(lines.length >= refusedWrites, `${lines.length} lines for ${refusedWrites}`);
      for (const line of lines) assert.ok(line.length < 400, line);
      const res = await fetch(`${url}/metrics`, {
        headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const families = parseExposition(await res.text());
      const full = families.get("routine_tracker_kv_errors_total")?.samples
        .find((s) => s.labels.kind === "full");
      assert.ok(full && full.value >= refusedWrites, JSON.stringify(full));
    });
    await t.step("space freed: the next write succeeds, no restart", async () => {
      await Deno.remove(`${disk.dir}/filler`);
      const res = await save("2026-11-21");
      assert.equal(res.status, 200, JSON.stringify(res.body));
    });
  } finally {
    await disk.unmount();
  }
});
