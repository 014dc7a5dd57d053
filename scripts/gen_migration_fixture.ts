/**
 * Writes tests/fixtures/migration/format0.sqlite3: a small KV in the data format the service wrote
 * before formats were versioned (issue #14), for tests/process/migration_test.ts. Run it only to
 * change the fixture: `deno run -A --unstable-kv scripts/gen_migration_fixture.ts`.
 *
 * What makes it format 0 (each undone by a step of lib/operations/migrations.ts):
 * - no `data_format` key;
 * - a session without its `sessions_by_member` index (sessions before issue #9);
 * - a member without `membership` / `paidUntil` (accounts before issue #12);
 * - the `cache_epoch` and `cache_epoch_seen` keys of the retired cache epoch (before issue #9).
 * The record itself (columns, entries, record version) is written by today's store functions: its
 * format has not changed. The session token and password are in FIXTURE below, for the test.
 */

import { type Member, registerMember, type Session } from "../lib/accounts/accounts.ts";
import { createApiToken } from "../lib/accounts/api_tokens.ts";
import { hashSecret } from "../lib/foundation/secrets.ts";
import { keys } from "../lib/foundation/kv_keys.ts";
import { ColumnCreate, createColumn, saveEntry } from "../lib/record/store.ts";

/** What the test needs to know about the fixture. */
export const FIXTURE = {
  path: new URL("../tests/fixtures/migration/format0.sqlite3", import.meta.url).pathname,
  username: "ada",
  password: "fixture passphrase",
  /** A session created before the index existed; it expires in 2099, so the test never ages. */
  sessionToken: "rt_ses_fixtureSessionOfAdaFromBeforeTheSessionIndex0000000",
  /** Days with a `steps` value, and the values. */
  days: ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05"],
  steps: [4200, 6100, 8800, 5300, 7400],
};

const FAR_FUTURE = Date.UTC(2099, 0, 1);

async function write(kv: Deno.Kv): Promise<void> {
  const clock = () => Date.UTC(2026, 10, 6, 12);
  const ctx = { kv, clock, passwordIterations: 1000 };
  const { memberId } = await registerMember(ctx, {
    username: FIXTURE.username,
    password: FIXTURE.password,
  });
  await createColumn(
    { kv, clock },
    memberId,
    ColumnCreate.parse({ key: "steps", label: "Steps", type: "integer" }),
  );
  for (const [i, date] of FIXTURE.days.entries()) {
    await saveEntry({ ctx: { kv, clock }, memberId, date, values: { steps: FIXTURE.steps[i] } });
  }
  await createApiToken({ kv, clock, memberId, name: "old script", scopes: ["read"] });
  // The account as it was before tiers: no membership, no paidUntil.
  const member = (await kv.get<Member>(keys.member(memberId))).value!;
  const { membership: _m, paidUntil: _p, ...before } = member;
  await kv.set(keys.member(memberId), before);
  // Sessions as they were before the index: registration's own (indexed) one replaced by one
  // that has none.
  for await (const e of kv.list({ prefix: keys.sessionsOfMember(memberId) })) {
    await kv.delete(keys.session(e.key[2] as string));
    await kv.delete(e.key);
  }
  const session: Session = { memberId, createdAt: clock(), expiresAt: FAR_FUTURE };
  await kv.set(keys.session(hashSecret(FIXTURE.sessionToken)), session);
  // The retired cache epoch (literal keys: kv_keys.ts no longer builds them).
  await kv.set(["cache_epoch"], new Deno.KvU64(17n));
  await kv.set(["cache_epoch_seen", "instance-1"], { stamp: "00000000000000110000", at: clock() });
}

if (import.meta.main) {
  await Deno.mkdir(new URL(".", `file://${FIXTURE.path}`), { recursive: true });
  for (const suffix of ["", "-wal", "-shm"]) {
    await Deno.remove(FIXTURE.path + suffix).catch(() => {});
  }
  const kv = await Deno.openKv(FIXTURE.path);
  await write(kv);
  kv.close();
  // One self-contained file: fold the WAL in and switch journaling off, so git holds it whole.
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(FIXTURE.path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE; VACUUM;");
  db.close();
  console.log(`wrote ${FIXTURE.path}`);
}
