import assert from "node:assert/strict";
import { manualClock } from "../foundation/clock.ts";
import { keys } from "../foundation/kv_keys.ts";
import { registerMember } from "../accounts/accounts.ts";
import { ColumnCreate, createColumn, saveEntry } from "../record/store.ts";
import { startPushService } from "../../tests/_push_service.ts";
import { ensureVapidKeys } from "./vapid.ts";
import { addSubscription, PushSubscriptionInput } from "./subscriptions.ts";
import { pushToMember, sendPush } from "./push.ts";
import { getReminders, ReminderSettings, saveReminders } from "./reminders.ts";
import { handleDue, type ReminderOutcome, reminderPoll } from "./reminder_poll.ts";
import { nextDueAfter } from "./schedule.ts";

const CONTACT = "mailto:ops@example.org";
// 2026-11-26 18:00 UTC = 19:00 in Paris
const START = Date.UTC(2026, 10, 26, 18);

async function memberWithColumn(kv: Deno.Kv, clock: () => number) {
  const ctx = { kv, clock, passwordIterations: 1000 };
  const m = await registerMember(ctx, {
    username: "ann",
    password: "correct horse battery",
    timezone: "Europe/Paris",
  });
  await createColumn(
    ctx,
    m.memberId,
    ColumnCreate.parse({
      key: "workout",
      label: "Workout",
      type: "boolean",
      // a missed day breaks its streak: only such a streak is "at risk" tonight
      missing_policy: "breaks",
    }),
  );
  return m.memberId;
}

Deno.test("sendPush() delivers a payload the push service decrypts (RFC 8291) under a VAPID JWT it verifies (RFC 8292)", async () => {
  using kv = await Deno.openKv(":memory:");
  await using service = startPushService();
  const vapid = await ensureVapidKeys(kv);
  const sub = await service.subscribe(vapid.publicKey);
  const payload = {
    title: "Routine Tracker",
    body: "Nothing is logged for today yet.",
    url: "/app",
  };
  assert.equal(await sendPush({ vapid, contact: CONTACT }, sub.json, payload), "sent");
  assert.deepEqual(service.refused, []);
  const [got] = await service.waitFor(1);
  assert.deepEqual(got.payload, payload);
  assert.equal(got.claims.aud, service.origin);
  assert.equal(got.claims.sub, CONTACT);
  assert.equal(got.vapidKey, vapid.publicKey);
});

Deno.test("ensureVapidKeys() makes one key pair, which every later call (any instance) reads", async () => {
  using kv = await Deno.openKv(":memory:");
  const [a, b] = await Promise.all([ensureVapidKeys(kv), ensureVapidKeys(kv)]);
  assert.deepEqual(a, b);
  assert.deepEqual(await ensureVapidKeys(kv), a);
  assert.equal(a.publicKey.length, 87); // 65 bytes, base64url
});

Deno.test("pushToMember() drops a subscription its push service answers 404 or 410, keeps the others", async () => {
  using kv = await Deno.openKv(":memory:");
  await using service = startPushService();
  const vapid = await ensureVapidKeys(kv);
  const [live, expired, gone] = await Promise.all([1, 2, 3].map(() => service.subscribe()));
  for (const s of [live, expired, gone]) {
    await addSubscription(kv, "m1", PushSubscriptionInput.parse(s.json), 1);
  }
  service.answer(expired.id, 404);
  service.answer(gone.id, 410);
  const report = await pushToMember(kv, { vapid, contact: CONTACT }, "m1", {
    title: "t",
    body: "b",
    url: "/app",
  });
  assert.deepEqual(report, { sent: 1, dropped: 2, failed: 0 });
  const left = [];
  for await (const e of kv.list({ prefix: keys.pushSubscriptionsOf("m1") })) left.push(e.value);
  assert.deepEqual(left.map((v) => (v as { endpoint: string }).endpoint), [live.json.endpoint]);
});

Deno.test("nextDueAfter() finds a wall time in the member's zone, across a daylight-saving change", () => {
  assert.equal(nextDueAfter(["21:00"], START, "Europe/Paris"), Date.UTC(2026, 10, 26, 20));
  assert.equal(nextDueAfter(["21:00"], START, "America/New_York"), Date.UTC(2026, 10, 27, 2));
  // Paris moves to summer time on 2026-03-29: 21:00 is 20:00 UTC before, 19:00 UTC after
  assert.equal(
    nextDueAfter(["21:00"], Date.UTC(2026, 2, 28, 21), "Europe/Paris"),
    Date.UTC(2026, 2, 29, 19),
  );
  assert.equal(nextDueAfter([], START, "UTC"), null);
});

Deno.test("handleDue() sends a due reminder once when two pollers race for it", async () => {
  using kv = await Deno.openKv(":memory:");
  await using service = startPushService();
  const clock = manualClock(START);
  const memberId = await memberWithColumn(kv, clock);
  await addSubscription(
    kv,
    memberId,
    PushSubscriptionInput.parse((await service.subscribe()).json),
    START,
  );
  const settings = ReminderSettings.parse({ reminders: [{ at: "21:00" }] });
  const saved = await saveReminders(kv, { memberId, settings, now: START });
  assert.equal(saved.nextDueAt, Date.UTC(2026, 10, 26, 20));
  clock.set(saved.nextDueAt! + 1000);
  const ctx = { kv, clock, pushContact: CONTACT };
  const item = {
    key: keys.reminderDueAt(saved.nextDueAt!, memberId),
    dueAt: saved.nextDueAt!,
    id: memberId,
  };
  const outcomes = await Promise.all([
    handleDue(ctx, item),
    handleDue(ctx, item),
    handleDue(ctx, item),
  ]);
  assert.deepEqual(outcomes.filter((o) => o === "sent"), ["sent"]);
  await service.waitFor(1);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(service.received.length, 1);
  assert.deepEqual(service.received[0].payload, {
    title: "Routine Tracker",
    body: "Nothing is logged for today yet.",
    url: "/app",
  });
  // moved to tomorrow's 21:00, in the index too
  assert.equal((await getReminders(kv, memberId)).nextDueAt, Date.UTC(2026, 10, 27, 20));
  const due = [];
  for await (const e of kv.list({ prefix: keys.reminderDueAtAll() })) due.push(e.key);
  assert.deepEqual(due, [keys.reminderDueAt(Date.UTC(2026, 10, 27, 20), memberId)]);
});

Deno.test("reminderPoll() says nothing when the day is logged, names the column and the streak at risk when not", async () => {
  using kv = await Deno.openKv(":memory:");
  await using service = startPushService();
  const clock = manualClock(Date.UTC(2026, 10, 23, 12));
  const memberId = await memberWithColumn(kv, clock);
  const ctx = { kv, clock };
  for (const date of ["2026-11-23", "2026-11-24", "2026-11-25"]) {
    clock.set(Date.parse(`${date}T12:00:00Z`));
    await saveEntry({ ctx, memberId, date, values: { workout: true }, note: null });
  }
  clock.set(START);
  await addSubscription(
    kv,
    memberId,
    PushSubscriptionInput.parse((await service.subscribe()).json),
    START,
  );
  const settings = ReminderSettings.parse({
    reminders: [{ at: "20:00", column: null }, { at: "21:00", column: "workout" }],
    streakNudgeAt: "21:00",
  });
  await saveReminders(kv, { memberId, settings, now: START });
  const outcomes: ReminderOutcome[] = [];
  const poll = () =>
    reminderPoll({ kv, clock, pushContact: CONTACT, onOutcome: (_, o) => outcomes.push(o) });
  // 20:00 Paris: a note was written today, so the day counts as logged: nothing is sent
  await saveEntry({ ctx, memberId, date: "2026-11-26", values: {}, note: "tired" });
  clock.set(Date.UTC(2026, 10, 26, 19, 0, 5));
  await poll();
  assert.deepEqual(outcomes, ["nothing_to_say"]);
  clock.set(Date.UTC(2026, 10, 26, 20, 0, 5));
  await poll();
  assert.deepEqual(outcomes, ["nothing_to_say", "sent"]);
  const [got] = await service.waitFor(1);
  assert.deepEqual(got.payload, {
    title: "Routine Tracker",
    body:
      "Workout is not logged for today yet. Your 3-day Workout streak ends today unless you log it.",
    url: "/app",
  });
});

Deno.test("saveReminders() refuses a column the member does not have", async () => {
  using kv = await Deno.openKv(":memory:");
  const memberId = await memberWithColumn(kv, () => START);
  const settings = ReminderSettings.parse({ reminders: [{ at: "21:00", column: "nope" }] });
  await assert.rejects(
    saveReminders(kv, { memberId, settings, now: START }),
    /No column has the key "nope"/,
  );
});

Deno.test("reminderPoll() sends what is due when no one listens to its outcomes", async () => {
  using kv = await Deno.openKv(":memory:");
  await using service = startPushService();
  const clock = manualClock(START);
  const memberId = await memberWithColumn(kv, clock);
  const sub = PushSubscriptionInput.parse((await service.subscribe()).json);
  await addSubscription(kv, memberId, sub, START);
  const settings = ReminderSettings.parse({ reminders: [{ at: "21:00" }] });
  const saved = await saveReminders(kv, { memberId, settings, now: START });
  clock.set(saved.nextDueAt! + 1000);
  assert.deepEqual(await reminderPoll({ kv, clock, pushContact: CONTACT }), {
    leased: true,
    seen: 1,
  });
  await service.waitFor(1);
});
