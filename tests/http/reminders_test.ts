/**
 * Reminders over HTTP (issue #24): the Reminders page, a browser's push subscription posted as
 * JSON by the page's script (CSRF-checked), "Send a test reminder" reaching a local push service
 * that verifies the VAPID JWT and decrypts the payload, and reminder times saved through the form.
 */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { TIME_MESSAGE, tooManyMessage } from "../../components/reminders/form_check.ts";
import { MAX_REMINDERS } from "../../lib/notify/reminders.ts";
import { startPushService } from "../_push_service.ts";
import { assertSelector, Browser, hiddenValue, proxyAs, signedUpBrowser } from "./_web.ts";

/** POSTs JSON as the page's script does (same origin unless `headers` says otherwise). */
function postJson(b: Browser, path: string, body: unknown, headers = { Origin: b.origin }) {
  return b.request(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: b.cookie, ...headers },
    body: JSON.stringify(body),
  });
}

Deno.test("GET /app/settings/reminders", async (t) => {
  await using app = await makeApp();

  await t.step("the times form, the nudge, the push switch and the test button", async () => {
    const w = await signedUpBrowser(app, "rita");
    const { status, html } = await w.get("/app/settings/reminders");
    assert.equal(status, 200);
    assertSelector(html, "h1", { text: "Reminders" });
    assertSelector(html, "form[action='/app/settings/reminders#times'] button", {
      text: "Save reminders",
    });
    assertSelector(html, "form[action='/app/settings/reminders/test#devices'] button", {
      text: "Send a test reminder",
    });
    assertSelector(html, "input#f-streakNudgeAt[type=time]");
    const key = (await proxyAs(w, { action: "getReminders" })).vapidPublicKey as string;
    assertSelector(html, `[data-push][data-vapid-key="${key}"]`);
  });

  await t.step("signed out: to sign-in", async () => {
    const res = await new Browser(app).get("/app/settings/reminders");
    assert.equal(res.status, 303);
  });
});

Deno.test("POST /app/settings/push", async (t) => {
  await using app = await makeApp({ config: { pushAllowLoopbackHttp: true } });
  await using service = startPushService();
  const w = await signedUpBrowser(app, "paul");
  const csrf = hiddenValue((await w.get("/app/settings/reminders")).html, "csrf");

  await t.step("a subscription from another site is refused (CSRF)", async () => {
    const sub = await service.subscribe();
    const res = await postJson(w, "/app/settings/push", { subscription: sub.json }, {
      Origin: "https://evil.example",
    });
    assert.equal(res.status, 403);
    await res.body?.cancel();
    assert.equal((await proxyAs(w, { action: "getReminders" })).devices, 0);
  });

  await t.step("a plain-http endpoint elsewhere than loopback is refused", async () => {
    const sub = await service.subscribe();
    const json = { ...sub.json, endpoint: "http://push.example/x" };
    const res = await postJson(w, "/app/settings/push", { csrf, subscription: json });
    assert.equal(res.status, 400);
    assert.match((await res.json()).error, /https/);
  });

  await t.step(
    "a browser's subscription is stored; the test reminder reaches it decrypted",
    async () => {
      const key = (await proxyAs(w, { action: "getReminders" })).vapidPublicKey as string;
      const sub = await service.subscribe(key);
      const res = await postJson(w, "/app/settings/push", { csrf, subscription: sub.json });
      assert.equal(res.status, 201);
      assert.equal((await res.json()).devices, 1);
      const sent = await w.post("/app/settings/reminders/test", { csrf });
      assert.equal(sent.status, 303);
      assert.equal(sent.location, "/app/settings/reminders#devices");
      const [got] = await service.waitFor(1);
      assert.deepEqual(service.refused, []);
      assert.deepEqual(got.payload, {
        title: "Routine Tracker",
        body: "This is a test reminder: reminders will reach this device.",
        url: "/app",
      });
      assert.equal(got.vapidKey, key);
      assert.match(
        (await w.get("/app/settings/reminders")).html,
        /Test reminder sent to 1 device\./,
      );
    },
  );

  await t.step(
    "the island's test reminder asks for JSON: {message}, no redirect (#25)",
    async () => {
      const before = service.received.length;
      const res = await postJson(w, "/app/settings/reminders/test", { csrf });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { message: "Test reminder sent to 1 device." });
      await service.waitFor(before + 1);
      const forged = await postJson(w, "/app/settings/reminders/test", {}, {
        Origin: "https://evil.example",
      });
      assert.equal(forged.status, 403);
      await forged.body?.cancel();
      assert.equal(service.received.length, before + 1);
    },
  );

  await t.step(
    "a subscription the push service forgot (410) is dropped on the next send",
    async () => {
      service.answer(service.received[0].subscriptionId, 410);
      await w.post("/app/settings/reminders/test", { csrf });
      assert.equal((await proxyAs(w, { action: "getReminders" })).devices, 0);
      assert.match(
        (await w.get("/app/settings/reminders")).html,
        /1 device no longer accepts notifications and was removed\./,
      );
    },
  );
});

Deno.test("POST /app/settings/reminders", async (t) => {
  await using app = await makeApp();
  const w = await signedUpBrowser(app, "rosa");
  const csrf = hiddenValue((await w.get("/app/settings/reminders")).html, "csrf");

  await t.step("times saved through setReminders, next one due in the member's zone", async () => {
    const res = await w.post("/app/settings/reminders", {
      csrf,
      at0: "21:00",
      column0: "",
      at1: "",
      streakNudgeAt: "20:30",
    });
    assert.equal(res.status, 303, res.html);
    const view = await proxyAs(w, { action: "getReminders" });
    assert.deepEqual(view.reminders, [{ at: "21:00", column: null }]);
    assert.equal(view.streakNudgeAt, "20:30");
    // the test clock is 2026-11-22 12:00 UTC, the member's zone UTC: 20:30 is next
    assert.equal(view.nextDueAt, "2026-11-22T20:30:00.000Z");
    const page = await w.get("/app/settings/reminders");
    assert.match(page.html, /Reminders saved\./);
    assert.match(page.html, /Next: Sunday 22 November, 20:30\./);
  });

  await t.step("a time that is not HH:MM: 422 with the reason, nothing saved", async () => {
    const res = await w.post("/app/settings/reminders", { csrf, at0: "25:00" });
    assert.equal(res.status, 422);
    assert.match(res.html, /a time is HH:MM/);
    assert.equal((await proxyAs(w, { action: "getReminders" })).reminders.length, 1);
  });

  await t.step("the island's inline check says what the server says (#25)", async () => {
    const seven = Object.fromEntries(
      Array.from({ length: MAX_REMINDERS + 1 }, (_, i) => [`at${i}`, `0${i}:30`]),
    );
    const many = await w.post("/app/settings/reminders", { csrf, ...seven });
    assert.equal(many.status, 422);
    assert.ok(many.html.includes(tooManyMessage(MAX_REMINDERS)), many.html);
    const bad = await w.post("/app/settings/reminders", { csrf, streakNudgeAt: "7:5" });
    assert.equal(bad.status, 422);
    assert.ok(bad.html.includes(TIME_MESSAGE));
  });

  await t.step("without the CSRF token or Origin: 403", async () => {
    const res = await w.post("/app/settings/reminders", { at0: "07:00" }, {});
    assert.equal(res.status, 403);
  });
});

Deno.test("reminders: deleting the account removes its reminders, due keys and devices", async () => {
  await using app = await makeApp({ config: { pushAllowLoopbackHttp: true } });
  await using service = startPushService();
  const w = await signedUpBrowser(app, "gone");
  const memberId = (await proxyAs(w, { action: "getProfile" })).username as string;
  const sub = await service.subscribe();
  await proxyAs(w, { action: "addPushSubscription", subscription: sub.json });
  await proxyAs(w, { action: "setReminders", reminders: [{ at: "21:00", column: null }] });
  const named = async () => {
    const out: string[] = [];
    for await (const e of app.kv.list({ prefix: [] })) {
      const key = JSON.stringify(e.key);
      if (/^\["(reminders|reminder_due_at|reminder_due_by_member|push_subscriptions)"/.test(key)) {
        out.push(key);
      }
    }
    return out;
  };
  assert.equal((await named()).length, 4, "reminders, two due keys, one device");
  const res = await w.request("/api/auth", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${w.sessionToken}` },
    body: JSON.stringify({ action: "deleteAccount", confirmUsername: memberId }),
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.deepEqual(await named(), []);
});
