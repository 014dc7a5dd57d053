/**
 * Guesses at one username's password (issue #19): counted per username whatever the client
 * address, whether or not the name exists, on every path that checks a password; past the quota
 * refused with 429, `Retry-After` and the RateLimit fields — the right password too.
 */

import assert from "node:assert/strict";
import { RATE_LIMIT_POLICIES } from "../../lib/policy/rate_limit.ts";
import { jsonPost, makeApp, type TestApp } from "../_helpers.ts";
import { assertText, Browser, OWN_ORIGIN } from "./_web.ts";

const { q } = RATE_LIMIT_POLICIES.password; // 20 an hour
const RIGHT = "the right passphrase";

/** What a client sees of one answer, without what differs by request (its id). */
interface Seen {
  status: number;
  code: string | null;
  error: string | null;
  retryAfter: string | null;
  policy: string | null;
}

async function seen(res: Response): Promise<Seen> {
  const body = await res.json();
  return {
    status: res.status,
    code: body.code ?? null,
    error: body.error ?? null,
    retryAfter: res.headers.get("retry-after"),
    policy: res.headers.get("ratelimit-policy"),
  };
}

/** `login` from address 198.51.100.x, x = `from` (the auth quota counts per address). */
async function login(a: TestApp, username: string, password: string, from: number) {
  const hop = `198.51.${100 + (from >> 8)}.${from & 255}`;
  const res = await a.request(
    "/api/auth",
    jsonPost({ action: "login", username, password }, { "X-Forwarded-For": hop }),
  );
  return await seen(res);
}

/** 200 wrong passwords for `username`, from 200 addresses, in bursts of 20 at once. */
async function guess200(a: TestApp, username: string): Promise<Seen[]> {
  const out: Seen[] = [];
  for (let i = 0; i < 200; i += 20) {
    const burst = Array.from({ length: 20 }, (_, j) => login(a, username, `guess ${i + j}`, i + j));
    out.push(...await Promise.all(burst));
  }
  return out;
}

async function register(a: TestApp, username: string): Promise<string> {
  const res = await a.request(
    "/api/auth",
    jsonPost({ action: "register", username, password: RIGHT }, { "X-Forwarded-For": "192.0.2.1" }),
  );
  assert.equal(res.status, 201);
  return (await res.json()).sessionToken;
}

Deno.test("sign-in guesses: 20 wrong passwords an hour per username, from any address", async (t) => {
  await using a = await makeApp({ config: { trustProxy: true } });
  await register(a, "victim");
  let known: Seen[] = [];

  await t.step("200 wrong passwords from 200 addresses: 20 evaluated, then 429", async () => {
    known = await guess200(a, "Victim"); // the lookup is case-insensitive, and so is the count
    // Before: all 200 were evaluated (401).
    assert.equal(known.filter((s) => s.status === 401).length, q);
    const refused = known.filter((s) => s.status === 429);
    assert.equal(refused.length, 200 - q);
    for (const s of refused) {
      assert.equal(s.code, "rate_limited");
      assert.ok(Number(s.retryAfter) >= 1, `Retry-After ${s.retryAfter}`);
      assert.equal(s.policy, `"password";q=${q};w=3600`);
      assert.match(s.error!, /even with the right password/);
    }
  });

  await t.step("the right password is refused too, until the window has passed", async () => {
    const right = await login(a, "victim", RIGHT, 500);
    assert.equal(right.status, 429);
    assert.equal(right.error, known[known.length - 1].error);
    a.clock.advance(2 * 3600_000); // the sliding estimate has forgotten both windows
    assert.equal((await login(a, "victim", RIGHT, 501)).status, 200);
  });

  await t.step("an unknown username is answered exactly alike", async () => {
    const unknown = await guess200(a, "nobody-at-all");
    assert.deepEqual(
      unknown.map(({ status, code, policy }) => ({ status, code, policy })),
      known.map(({ status, code, policy }) => ({ status, code, policy })),
    );
    assert.equal(unknown[199].error, known[199].error);
    assert.equal(unknown[0].error, known[0].error);
  });

  await t.step("right passwords spend nothing", async () => {
    await register(a, "regular");
    for (let i = 0; i < q + 5; i++) {
      assert.equal((await login(a, "regular", RIGHT, 600 + i)).status, 200, `sign-in ${i + 1}`);
    }
  });
});

Deno.test("sign-in guesses: the /signin page and password change share the username's count", async (t) => {
  await using a = await makeApp({ config: { trustProxy: true } });
  const session = await register(a, "pagey");
  const page = (password: string, i: number) =>
    new Browser(a).post("/signin", { username: "PAGEY", password }, {
      Origin: OWN_ORIGIN,
      "X-Forwarded-For": `203.0.113.${i}`,
    });

  await t.step(
    "POST /signin: 10 wrong passwords are evaluated, as the page always did",
    async () => {
      for (let i = 0; i < 10; i++) assert.equal((await page(`wrong ${i}`, i)).status, 401);
    },
  );

  await t.step(
    "POST /api/auth changePassword: a wrong current password spends one too",
    async () => {
      for (let i = 0; i < 10; i++) {
        const res = await a.request(
          "/api/auth",
          jsonPost(
            {
              action: "changePassword",
              currentPassword: `wrong ${i}`,
              newPassword: "a new passphrase",
            },
            { Authorization: `Bearer ${session}`, "X-Forwarded-For": `203.0.113.${50 + i}` },
          ),
        );
        assert.equal(res.status, 401, await res.text());
      }
      const res = await a.request(
        "/api/auth",
        jsonPost(
          { action: "changePassword", currentPassword: RIGHT, newPassword: "a new passphrase" },
          { Authorization: `Bearer ${session}`, "X-Forwarded-For": "203.0.113.99" },
        ),
      );
      assert.equal(res.status, 429);
      assert.ok(Number(res.headers.get("retry-after")) >= 1);
    },
  );

  await t.step(
    "POST /signin past the count: 429 page with Retry-After, right password too",
    async () => {
      const res = await page(RIGHT, 200);
      assert.equal(res.status, 429);
      assert.ok(Number(res.res.headers.get("retry-after")) >= 1);
      assert.equal(res.res.headers.get("ratelimit-policy"), `"password";q=${q};w=3600`);
      assertText(res.html, "even with the right password");
    },
  );
});
