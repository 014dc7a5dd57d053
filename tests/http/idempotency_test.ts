/**
 * `Idempotency-Key` on the writes an offline queue replays (issue #24): a change sent twice under
 * one key — its first answer lost, a newer change made meanwhile — is applied once, through the
 * REST action and through Today's form alike, and a malformed key is a 400, never ignored.
 */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import { type Browser, csrfOf, proxyAs, signedUpBrowser } from "./_web.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";

/** The manual clock starts at 2026-11-22 12:00 UTC; the member's zone is UTC. */
const TODAY = "2026-11-22";

async function withStarters(t: TestApp, username = "alice"): Promise<Browser> {
  const b = await signedUpBrowser(t, username);
  const res = await b.post("/app/columns", { do: "templates_all" });
  assert.equal(res.status, 303);
  return b;
}

/** `saveEntry` through `POST /api/proxy` with the session as bearer, under `key` if given. */
function saveWithKey(b: Browser, values: Record<string, unknown>, key?: string) {
  return b.request("/api/proxy", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Authorization: `Bearer ${b.session}`,
      ...(key === undefined ? {} : { "Idempotency-Key": key }),
    },
    body: JSON.stringify({ action: "saveEntry", date: TODAY, values }),
  });
}

async function valuesOn(b: Browser, day: string) {
  const res = await proxyAs(b, { action: "getEntries", start: day, end: day });
  return (res.entries as { values: Record<string, unknown> }[])[0]?.values ?? {};
}

/** How many writes alice's record has taken (each commit bumps it). */
async function recordVersion(t: TestApp): Promise<bigint> {
  const memberId = (await t.kv.get<string>(keys.username("alice"))).value;
  assert.ok(memberId, "alice is registered");
  const v = await t.kv.get<Deno.KvU64>(keys.recordVersion(memberId));
  return v.value?.value ?? 0n;
}

Deno.test("idempotency: a change replayed under its Idempotency-Key is applied once", async (t) => {
  await using app = await makeApp();
  const b = await withStarters(app);

  await t.step(
    "POST /api/proxy saveEntry: the replay answers the first entry, writes nothing",
    async () => {
      const first = await saveWithKey(b, { water_glasses: 3 }, "k-water-1");
      assert.equal(first.status, 200);
      const firstBody = await first.json();
      // a newer change made meanwhile (another device, or the member online)
      assert.equal((await saveWithKey(b, { water_glasses: 5 })).status, 200);
      const before = await recordVersion(app);
      const replay = await saveWithKey(b, { water_glasses: 3 }, "k-water-1");
      assert.equal(replay.status, 200);
      assert.deepEqual(
        await replay.json(),
        firstBody,
        "the replay answers what the first answered",
      );
      assert.equal((await valuesOn(b, TODAY)).water_glasses, 5, "the newer value stands");
      assert.equal(await recordVersion(app), before, "the replay committed nothing");
    },
  );

  await t.step(
    "POST /app (Today's form): a replayed form does not undo a newer change",
    async () => {
      const csrf = csrfOf((await b.get("/app")).html);
      const form = { csrf, day: TODAY, "v.sleep_hours": "7.5" };
      const headers = { Origin: b.origin, "Idempotency-Key": '"k-sleep-1"' };
      assert.equal((await b.post("/app", form, headers)).status, 303);
      assert.equal((await saveWithKey(b, { sleep_hours: 6 })).status, 200);
      assert.equal((await b.post("/app", form, headers)).status, 303);
      assert.equal((await valuesOn(b, TODAY)).sleep_hours, 6, "the newer value stands");
    },
  );

  await t.step("a new key is a new change", async () => {
    assert.equal((await saveWithKey(b, { water_glasses: 3 }, "k-water-2")).status, 200);
    assert.equal((await valuesOn(b, TODAY)).water_glasses, 3);
  });

  await t.step("one member's key does not stand for another member's change", async () => {
    const other = await withStarters(app, "bob");
    assert.equal((await saveWithKey(other, { water_glasses: 8 }, "k-water-1")).status, 200);
    assert.equal((await valuesOn(other, TODAY)).water_glasses, 8);
  });

  await t.step(
    "OPTIONS /api/proxy: a browser client on another origin may send the key",
    async () => {
      const res = await app.request("/api/proxy", {
        method: "OPTIONS",
        headers: {
          Origin: "https://client.example",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
        },
      });
      assert.equal(res.status, 204);
      assert.match(res.headers.get("access-control-allow-headers") ?? "", /\bIdempotency-Key\b/);
    },
  );

  await t.step("a malformed key is a 400 with the envelope, and nothing is written", async () => {
    for (const key of ["", "a b", "x".repeat(129), '"unterminated', "é"]) {
      const res = await saveWithKey(b, { water_glasses: 9 }, key);
      const body = await res.json();
      assert.equal(res.status, 400, `key ${JSON.stringify(key)}: ${JSON.stringify(body)}`);
      assert.equal(body.code, "invalid_request");
      assert.match(body.error, /Idempotency-Key/);
    }
    assert.equal((await valuesOn(b, TODAY)).water_glasses, 3);
  });
});

Deno.test("idempotency: /openapi.json documents Idempotency-Key for the actions that honour it, as the server reads it", async (t) => {
  await using app = await makeApp();
  const b = await withStarters(app);
  const doc = await (await app.request("/openapi.json")).json();
  const params = doc.paths["/api/proxy"].post.parameters as
    | { name: string; in: string; description: string; schema: { pattern: string } }[]
    | undefined;
  const header = params?.find((p) => p.name === "Idempotency-Key" && p.in === "header");
  assert.ok(header, "POST /api/proxy documents an Idempotency-Key header parameter");

  await t.step("it names saveEntry and skipDay, the changes an offline queue replays", () => {
    const named = [...header.description.matchAll(/`(\w+)`/g)].map((m) => m[1])
      .filter((n) => n in doc.paths["/api/proxy"].post["x-action-responses"]);
    assert.deepEqual(named, ["saveEntry", "skipDay"]);
  });

  await t.step("its pattern accepts exactly the keys the server accepts", async () => {
    const pattern = new RegExp(header.schema.pattern);
    const keys = [
      crypto.randomUUID(),
      `"${crypto.randomUUID()}"`,
      "a\\b",
      "x".repeat(128),
      "x".repeat(129),
      "a b",
      '"a"b"',
      "é",
      '"unterminated',
    ];
    for (const key of keys) {
      const res = await saveWithKey(b, { water_glasses: 4 }, key);
      await res.body?.cancel();
      assert.equal(
        pattern.test(key),
        res.status === 200,
        `key ${JSON.stringify(key)}: ${res.status}`,
      );
    }
  });
});
