/**
 * Concurrent replay (issue #19 item 6): two requests redeeming the same refresh token or code at
 * once, on two app instances sharing one KV file. Whoever wins, the grant is revoked and every
 * token from it stops working (RFC 9700 §4.14.2, OAuth 2.1 §4.3.1, RFC 6749 §4.1.2) — the winner
 * may be the thief.
 */

import assert from "node:assert/strict";
import { startServer, type TestServer } from "../_helpers.ts";
import { manualClock } from "../../lib/foundation/clock.ts";
import {
  type BrowserMember,
  callTool,
  codeFor,
  grantTokensFor,
  newPkce,
  registerClient,
  signUpMember,
  tokenRequest,
} from "./_oauth.ts";

const REDIRECT = "https://app.example.com/cb";
const ROUNDS = 10;

type TokenAnswer = Awaited<ReturnType<typeof tokenRequest>>;

/** Asserts at most one of two racing answers won, and the loser was told invalid_grant. */
function assertOneWinner(answers: TokenAnswer[], round: number): TokenAnswer | undefined {
  const won = answers.filter((a) => a.status === 200);
  assert.ok(won.length <= 1, `round ${round}: both redemptions succeeded`);
  for (const lost of answers.filter((a) => a.status !== 200)) {
    assert.equal(lost.status, 400, `round ${round}: ${JSON.stringify(lost.body)}`);
    assert.equal(lost.body.error, "invalid_grant", `round ${round}`);
  }
  return won[0];
}

/** Asserts the tokens of a race winner are dead on both instances. */
async function assertDead(
  servers: TestServer[],
  clientId: string,
  winner: TokenAnswer | undefined,
  round: number,
) {
  if (!winner) return;
  for (const s of servers) {
    const tool = await callTool(s.url, winner.body.access_token as string);
    assert.equal(tool.status, 401, `round ${round}: the winner's access token still works`);
    const refresh = await tokenRequest(s.url, {
      grant_type: "refresh_token",
      refresh_token: winner.body.refresh_token as string,
      client_id: clientId,
    });
    assert.equal(refresh.status, 400, `round ${round}: the winner's refresh token still works`);
    assert.equal(refresh.body.error, "invalid_grant");
  }
}

Deno.test("OAuth replay races: a concurrent second use revokes the grant", async (t) => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/race.kv`;
  using kvA = await Deno.openKv(path);
  using kvB = await Deno.openKv(path);
  const clock = manualClock();
  // Many flows from one address in a few seconds: the quotas are not what this test is about.
  const config = { rateLimitMultiplier: 100 };
  await using a = await startServer({ kv: kvA, clock, config });
  await using b = await startServer({ kv: kvB, clock, config });
  const servers = [a, b];
  const alice: BrowserMember = await signUpMember(a.url, "alice");
  const clientId = await registerClient(a.url, [REDIRECT]);

  await t.step(`the same refresh token twice at once, ${ROUNDS} times`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const tokens = await grantTokensFor(a.url, {
        member: alice,
        clientId,
        redirectUri: REDIRECT,
      });
      const refresh = {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      };
      const answers = await Promise.all(servers.map((s) => tokenRequest(s.url, refresh)));
      const winner = assertOneWinner(answers, round);
      assert.equal((await callTool(a.url, tokens.access_token)).status, 401, `round ${round}`);
      await assertDead(servers, clientId, winner, round);
    }
  });

  await t.step(`the same authorization code twice at once, ${ROUNDS} times`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const pkce = newPkce();
      const code = await codeFor(a.url, alice, clientId, REDIRECT, pkce.challenge);
      const exchange = {
        grant_type: "authorization_code",
        code,
        code_verifier: pkce.verifier,
        client_id: clientId,
        redirect_uri: REDIRECT,
      };
      const answers = await Promise.all(servers.map((s) => tokenRequest(s.url, exchange)));
      const winner = assertOneWinner(answers, round);
      await assertDead(servers, clientId, winner, round);
    }
  });
  await Deno.remove(dir, { recursive: true });
});
