/**
 * A full disk, in process (issue #19 item 8): the KV's writes reject with the very error Deno KV
 * throws when SQLite meets a full disk — `TypeError: database or disk is full`, reproduced on a
 * full tmpfs (tests/process/full_disk_test.ts fills a real one where it may mount) — and every
 * surface answers 507 `storage_full`, never 500.
 */

import assert from "node:assert/strict";
import { jsonPost, makeApp } from "../_helpers.ts";
import { metrics } from "../../lib/foundation/metrics.ts";
import { assertSelector, assertText, Browser, signedUpBrowser } from "./_web.ts";

/** Deno KV's error on a full disk, word for word (Deno 2.9, SQLite's SQLITE_FULL text). */
const diskFull = () => Promise.reject(new TypeError("database or disk is full"));

/** A real in-memory KV whose writes fail as on a full disk while `disk.full` is true. */
function fillableKv(kv: Deno.Kv): { kv: Deno.Kv; full: boolean } {
  const disk = { kv, full: false };
  const wrapOp = (op: Deno.AtomicOperation): Deno.AtomicOperation => {
    const proxy: Deno.AtomicOperation = new Proxy(op, {
      get(target, prop) {
        if (prop === "commit") return () => (disk.full ? diskFull() : target.commit());
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const out = value.apply(target, args);
          return out === target ? proxy : out;
        };
      },
    });
    return proxy;
  };
  disk.kv = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") return () => wrapOp(target.atomic());
      const value = Reflect.get(target, prop, target);
      if (prop === "set" || prop === "delete" || prop === "enqueue") {
        return (...args: unknown[]) => disk.full ? diskFull() : value.apply(target, args);
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return disk;
}

/** `routine_tracker_kv_errors_total{kind="full"}` of this process. */
function fullCount(): number {
  const m = /^routine_tracker_kv_errors_total\{kind="full"\} (\d+)$/m.exec(metrics.render("t"));
  return m ? Number(m[1]) : 0;
}

Deno.test("full disk: every write surface answers 507 storage_full, never 500", async (t) => {
  using memory = await Deno.openKv(":memory:");
  const disk = fillableKv(memory);
  await using app = await makeApp({ kv: disk.kv });
  const ada = await signedUpBrowser(app, "ada");
  const bearer = { Authorization: `Bearer ${ada.session}` };
  const created = await app.request(
    "/api/proxy",
    jsonPost({ action: "createColumn", key: "steps", label: "Steps", type: "integer" }, bearer),
  );
  assert.equal(created.status, 200);
  disk.full = true;
  const before = fullCount();

  await t.step("REST: 507 envelope with a plain message", async () => {
    const res = await app.request(
      "/api/proxy",
      jsonPost({ action: "saveEntry", date: "2026-11-20", values: { steps: 1 } }, bearer),
    );
    assert.equal(res.status, 507);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const body = await res.json();
    assert.equal(body.code, "storage_full");
    assert.equal(
      body.error,
      "The service's storage is full, so nothing was saved. Reading still works; try again later.",
    );
    assert.ok(body.requestId);
  });
  await t.step("register over the API: 507", async () => {
    const res = await app.request(
      "/api/auth",
      jsonPost({ action: "register", username: "bea", password: "a long passphrase" }),
    );
    assert.equal(res.status, 507);
    assert.equal((await res.json()).code, "storage_full");
  });
  await t.step("the sign-up, sign-in and Today pages: a 507 HTML page", async () => {
    const signUp = new Browser(app);
    await signUp.get("/signup");
    const signIn = new Browser(app);
    await signIn.get("/signin");
    const pages = [
      await signUp.post("/signup", { username: "cleo", password: "a long passphrase" }),
      await signIn.post("/signin", { username: "ada", password: "a long passphrase" }),
      await ada.post("/app", { day: "2026-11-20", "v.steps": "5" }),
    ];
    for (const page of pages) {
      assert.equal(page.status, 507, page.html.slice(0, 200));
      assert.match(page.res.headers.get("content-type") ?? "", /^text\/html/);
      assertSelector(page.html, "h1", { count: 1, text: /^Nothing could be saved$/ });
      assertText(page.html, "The service's storage is full, so nothing was saved.");
    }
  });
  await t.step("counted in /metrics, once per refused write", () => {
    assert.ok(fullCount() - before >= 5, `${fullCount() - before}`);
  });
  await t.step("reads still work while full", async () => {
    const res = await app.request(
      "/api/proxy",
      jsonPost({ action: "getEntries", start: "2026-11-01", end: "2026-11-30" }, bearer),
    );
    assert.equal(res.status, 200);
  });
  disk.full = false;
});
