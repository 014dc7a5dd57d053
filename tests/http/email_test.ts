/**
 * E-mail (issue #24) over the REST API, with a local SMTP server (tests/_smtp_server.ts) standing
 * in for the operator's: the SMTP sender delivers, an address is verified by its single-use link,
 * and a forgotten password is reset by a link valid 30 minutes that ends every session.
 */

import assert from "node:assert/strict";
import { makeApp, type TestApp } from "../_helpers.ts";
import { linkIn, type LocalSmtp, startSmtpServer } from "../_smtp_server.ts";
import { post, registerWithToken, type TestMember } from "./_members.ts";
import { mailerFor } from "../../lib/notify/mail.ts";

const FROM = "Routine Tracker <tracker@example.org>";

/** An app that mails through `smtp`, with room in the `auth` quota for many calls. */
function appWith(smtp: LocalSmtp): Promise<TestApp> {
  return makeApp({ config: { smtp: { url: smtp.url, from: FROM }, rateLimitMultiplier: 50 } });
}

const auth = (t: TestApp, body: Record<string, unknown>, bearer?: string) =>
  post(t, "/api/auth", body, bearer);

/** Registers `username` and verifies `address` for them through the mailed link. */
async function withAddress(t: TestApp, smtp: LocalSmtp, username: string, address: string) {
  const member = await registerWithToken(t, username);
  const after = smtp.received.length;
  const set = await auth(t, { action: "setEmail", email: address }, member.sessionToken);
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.deepEqual(set.body, { email: null, pending: address });
  const token = new URL(linkIn(await smtp.waitFor(address, { after }), "/verify-email"))
    .searchParams.get("token");
  const verified = await auth(t, { action: "verifyEmail", token });
  assert.equal(verified.status, 200, JSON.stringify(verified.body));
  assert.deepEqual(verified.body, { verified: true, email: address });
  return member;
}

/** The reset link mailed to `address` after `after` messages. */
async function resetToken(smtp: LocalSmtp, address: string, after: number): Promise<string> {
  const mail = await smtp.waitFor(address, { after });
  return new URL(linkIn(mail, "/reset-password")).searchParams.get("token")!;
}

Deno.test("smtp sender: a message sent through SMTP_URL arrives at the server with its From, To, subject and text", async () => {
  await using smtp = await startSmtpServer();
  const mailer = mailerFor({ url: smtp.url, from: FROM })!;
  await mailer.send({ to: "ann@example.org", subject: "Hello", text: "A line of text.\n" });
  const mail = await smtp.waitFor("ann@example.org");
  assert.equal(mail.from, "tracker@example.org");
  assert.equal(mail.user, "tester");
  assert.equal(mail.subject, "Hello");
  assert.match(mail.raw, /^From: Routine Tracker <tracker@example\.org>/m);
  assert.equal(mail.text.trim(), "A line of text.");
});

Deno.test("email address: set, verify by its link once, and a second use of the link is refused", async () => {
  await using smtp = await startSmtpServer();
  await using t = await appWith(smtp);
  const member = await registerWithToken(t, "ann");
  const set = await auth(t, { action: "setEmail", email: "Ann@Example.org" }, member.sessionToken);
  assert.equal(set.status, 200, JSON.stringify(set.body));
  const mail = await smtp.waitFor("Ann@Example.org");
  assert.match(mail.subject, /Confirm your e-mail address/);
  const token = new URL(linkIn(mail, "/verify-email")).searchParams.get("token");
  const first = await auth(t, { action: "verifyEmail", token });
  assert.deepEqual(first.body, { verified: true, email: "Ann@Example.org" });
  const again = await auth(t, { action: "verifyEmail", token });
  assert.equal(again.status, 400);
  assert.equal(again.body.code, "invalid_link");
});

Deno.test("email address: changing it keeps the verified one until the new link is used", async () => {
  await using smtp = await startSmtpServer();
  await using t = await appWith(smtp);
  const member = await withAddress(t, smtp, "ann", "ann@example.org");
  const after = smtp.received.length;
  const change = await auth(
    t,
    { action: "setEmail", email: "new@example.org" },
    member.sessionToken,
  );
  assert.deepEqual(change.body, { email: "ann@example.org", pending: "new@example.org" });
  // before verification a reset still goes to the old, verified address only
  await auth(t, { action: "requestPasswordReset", email: "new@example.org" });
  await auth(t, { action: "requestPasswordReset", email: "ann@example.org" });
  const mails = () => smtp.received.slice(after).map((m) => [m.to[0], m.subject]);
  await smtp.waitFor("ann@example.org", { after });
  assert.deepEqual(mails().filter(([, s]) => /Reset/.test(s)), [
    ["ann@example.org", "Reset your Routine Tracker password"],
  ]);
  const token = new URL(linkIn(await smtp.waitFor("new@example.org", { after }), "/verify-email"))
    .searchParams.get("token");
  assert.equal((await auth(t, { action: "verifyEmail", token })).status, 200);
  const n = smtp.received.length;
  await auth(t, { action: "requestPasswordReset", email: "ann@example.org" });
  await auth(t, { action: "requestPasswordReset", email: "new@example.org" });
  await smtp.waitFor("new@example.org", { after: n });
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(smtp.received.slice(n).map((m) => m.to[0]), ["new@example.org"]);
});

Deno.test("password reset: the link sets a new password once, ends every session and, if asked, every token", async () => {
  await using smtp = await startSmtpServer();
  await using t = await appWith(smtp);
  const member: TestMember = await withAddress(t, smtp, "ann", "ann@example.org");
  const other = await auth(t, { action: "login", username: "ann", password: "a long passphrase" });
  const after = smtp.received.length;
  const asked = await auth(t, { action: "requestPasswordReset", email: "ANN@example.org" });
  assert.equal(asked.status, 200);
  const token = await resetToken(smtp, "ann@example.org", after);
  const newPassword = "a brand new passphrase";
  const reset = await auth(t, {
    action: "resetPassword",
    token,
    newPassword,
    endTokensAndApps: true,
  });
  assert.deepEqual(reset.body, {
    passwordReset: true,
    sessionsSignedOut: true,
    tokensAndAppsEnded: true,
  });
  for (const bearer of [member.sessionToken, other.body.sessionToken as string, member.token]) {
    const session = await post(t, "/api/proxy", { action: "listColumns" }, bearer);
    assert.equal(session.status, 401, "every session and token is ended");
  }
  const old = await auth(t, { action: "login", username: "ann", password: "a long passphrase" });
  assert.equal(old.status, 401);
  assert.equal(
    (await auth(t, { action: "login", username: "ann", password: newPassword })).status,
    200,
  );
  const replay = await auth(t, {
    action: "resetPassword",
    token,
    newPassword: "yet another passphrase",
  });
  assert.equal(replay.status, 400);
  assert.equal(replay.body.code, "invalid_link");
});

Deno.test("password reset: a link is refused after 30 minutes", async () => {
  await using smtp = await startSmtpServer();
  await using t = await appWith(smtp);
  await withAddress(t, smtp, "ann", "ann@example.org");
  const after = smtp.received.length;
  await auth(t, { action: "requestPasswordReset", email: "ann@example.org" });
  const token = await resetToken(smtp, "ann@example.org", after);
  t.clock.advance(30 * 60 * 1000 + 1);
  const late = await auth(t, {
    action: "resetPassword",
    token,
    newPassword: "a brand new passphrase",
  });
  assert.equal(late.status, 400);
  assert.equal(late.body.code, "invalid_link");
});

Deno.test("password reset: the answer is the same for an unknown address, and the seventh request an hour is refused for either", async () => {
  await using smtp = await startSmtpServer();
  // ×2: the `password-reset` quota is 6 an hour per address, `auth` 20 a minute per client
  await using t = await makeApp({
    config: { smtp: { url: smtp.url, from: FROM }, rateLimitMultiplier: 2 },
  });
  await withAddress(t, smtp, "ann", "ann@example.org");
  const known = await auth(t, { action: "requestPasswordReset", email: "ann@example.org" });
  const unknown = await auth(t, { action: "requestPasswordReset", email: "nobody@example.org" });
  assert.equal(known.status, 200);
  assert.equal(unknown.status, 200);
  assert.deepEqual(known.body, unknown.body);
  for (const email of ["ann@example.org", "nobody@example.org"]) {
    for (let i = 0; i < 5; i++) {
      assert.equal((await auth(t, { action: "requestPasswordReset", email })).status, 200);
    }
    const seventh = await auth(t, { action: "requestPasswordReset", email });
    assert.equal(seventh.status, 429, email);
    assert.match(seventh.headers.get("RateLimit") ?? "", /^"password-reset";/);
  }
  // six links went to ann, none anywhere else
  while (smtp.received.filter((m) => /Reset/.test(m.subject)).length < 6) {
    await smtp.waitFor("ann@example.org", { after: smtp.received.length - 1 });
    await new Promise((r) => setTimeout(r, 20));
  }
  const resets = smtp.received.filter((m) => /Reset/.test(m.subject));
  assert.deepEqual(new Set(resets.flatMap((m) => m.to)), new Set(["ann@example.org"]));
});

Deno.test("password reset: without SMTP_URL the actions say the operator resets passwords", async () => {
  await using t = await makeApp();
  const asked = await auth(t, { action: "requestPasswordReset", email: "ann@example.org" });
  assert.equal(asked.status, 409);
  assert.equal(asked.body.code, "email_not_configured");
  assert.match(String(asked.body.error), /deno task admin reset-password/);
});
