/**
 * A reminder due while two instances run is sent once (issue #24): two real service processes on
 * one KV, each polling the reminders' due-time index every second; members with reminders at the
 * same minute and two browsers each; a local push service counts what arrives. Each browser must
 * get exactly one message: the poll lease lets one instance poll at a time, and the claim — a
 * commit checked against the member's reminders as read — lets only one send even if both read
 * the same due key (lib/notify/reminder_poll.ts). The members chose "both": each also verified an
 * e-mail address, and a local SMTP server must receive exactly one reminder per member.
 */

import assert from "node:assert/strict";
import { kvModeName, kvModes, startProcesses } from "../_processes.ts";
import { post } from "../http/_members.ts";
import { startPushService } from "../_push_service.ts";
import { linkIn, startSmtpServer } from "../_smtp_server.ts";

const MEMBERS = 4;
const DEVICES = 2;

/** The next whole UTC minute at least 12 s away, as HH:MM, and its instant. */
function nextMinute(): { at: string; ms: number } {
  const ms = Math.ceil((Date.now() + 12_000) / 60_000) * 60_000;
  return { at: new Date(ms).toISOString().slice(11, 16), ms };
}

for (const mode of kvModes(["file"])) {
  Deno.test(`reminders: due while two instances poll, each reaches each device once (${kvModeName(mode)})`, async () => {
    await using service = startPushService();
    await using smtp = await startSmtpServer();
    await using procs = await startProcesses({
      count: 2,
      kv: mode,
      env: {
        REMINDER_POLL_SECONDS: "1",
        PUSH_ALLOW_LOOPBACK_HTTP: "1",
        SMTP_URL: smtp.url,
        SMTP_FROM: "tracker@example.org",
        // three `auth` actions per member (register, setEmail, verifyEmail) from one address
        RATE_LIMIT_MULTIPLIER: "5",
      },
    });
    const sessions: string[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const url = procs.urls[i % 2];
      const reg = await post(url, "/api/auth", {
        action: "register",
        username: `once${i}`,
        password: "a long passphrase",
      });
      assert.equal(reg.status, 201, JSON.stringify(reg.body));
      const session = reg.body.sessionToken as string;
      for (let d = 0; d < DEVICES; d++) {
        const sub = await service.subscribe();
        const added = await post(url, "/api/proxy", {
          action: "addPushSubscription",
          subscription: sub.json,
        }, session);
        assert.equal(added.status, 200, JSON.stringify(added.body));
      }
      const address = `once${i}@example.org`;
      const asked = await post(url, "/api/auth", { action: "setEmail", email: address }, session);
      assert.equal(asked.status, 200, JSON.stringify(asked.body));
      const link = new URL(linkIn(await smtp.waitFor(address), "/verify-email"));
      const token = link.searchParams.get("token");
      const verified = await post(url, "/api/auth", { action: "verifyEmail", token });
      assert.equal(verified.status, 200, JSON.stringify(verified.body));
      sessions.push(session);
    }
    const due = nextMinute();
    const mailsBefore = smtp.received.length;
    for (const [i, session] of sessions.entries()) {
      // saved through the other instance: both must agree on the schedule
      const set = await post(procs.urls[(i + 1) % 2], "/api/proxy", {
        action: "setReminders",
        reminders: [{ at: due.at, column: null }],
        channel: "both",
      }, session);
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(set.body.nextDueAt, new Date(due.ms).toISOString());
    }
    const expected = MEMBERS * DEVICES;
    await service.waitFor(expected, due.ms - Date.now() + 15_000).catch((err) => {
      throw new Error(`${err.message}
${procs.output(0)}
${procs.output(1)}`);
    });
    // every process polls every second: a second send would come within a few polls
    await new Promise((r) => setTimeout(r, 4_000));
    assert.deepEqual(service.refused, []);
    assert.equal(service.received.length, expected, procs.output(0) + procs.output(1));
    const perDevice = new Set(service.received.map((r) => r.subscriptionId));
    assert.equal(perDevice.size, expected);
    const reminderMails = smtp.received.slice(mailsBefore);
    assert.deepEqual(
      reminderMails.map((m) => m.to.join()).sort(),
      Array.from({ length: MEMBERS }, (_, i) => `once${i}@example.org`),
      "one e-mail reminder per member",
    );
    for (const m of reminderMails) {
      assert.equal(m.subject, "Routine Tracker");
      assert.match(m.text, /^Nothing is logged for today yet\./);
    }
    for (const r of service.received) {
      assert.deepEqual(r.payload, {
        title: "Routine Tracker",
        body: "Nothing is logged for today yet.",
        url: "/app",
      });
    }
  });
}
