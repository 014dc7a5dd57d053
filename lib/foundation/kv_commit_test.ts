import assert from "node:assert/strict";
import { AppError } from "./errors.ts";
import { toAppError } from "../http/kernel/errors.ts";
import { commitKv, RETRY, withKvRetry } from "./kv_commit.ts";
import { openLimitedKv } from "../../tests/_kv_limits.ts";

Deno.test("withKvRetry() retries a transient 'database is locked' and returns the result", async () => {
  let calls = 0;
  const result = await withKvRetry(() => {
    calls++;
    if (calls < 3) throw new TypeError("database is locked");
    return Promise.resolve("done");
  });
  assert.equal(result, "done");
  assert.equal(calls, 3);
});

Deno.test("withKvRetry() reruns read-modify-writes until every concurrent one commits", async () => {
  const kv = await openLimitedKv();
  try {
    const key = ["counter"];
    const increment = () =>
      withKvRetry(async () => {
        const entry = await kv.get<number>(key);
        const res = await kv.atomic().check(entry).set(key, (entry.value ?? 0) + 1).commit();
        return res.ok ? true : RETRY;
      });
    await Promise.all([increment(), increment(), increment()]);
    assert.equal((await kv.get<number>(key)).value, 3);
  } finally {
    kv.close();
  }
});

Deno.test("withKvRetry() answers service_busy (503, Retry-After) when the bound is spent", async () => {
  let calls = 0;
  const err = await withKvRetry(() => {
    calls++;
    return Promise.resolve(RETRY);
  }).catch((e) => e);
  assert.ok(err instanceof AppError);
  assert.equal(err.code, "service_busy");
  assert.equal(err.status, 503);
  assert.equal(err.details?.retryAfterSeconds, 1);
  assert.equal(calls, 12);
});

Deno.test("withKvRetry() rethrows any other error at once", async () => {
  let calls = 0;
  const err = (await withKvRetry(() => {
    calls++;
    throw new AppError("not_found", "gone");
  }).catch((e) => e)) as AppError;
  assert.equal(err.code, "not_found");
  assert.equal(calls, 1);
});

Deno.test("commitKv() returns a failed check as is, for the caller to judge", async () => {
  const kv = await openLimitedKv();
  try {
    await kv.set(["taken"], 1);
    const res = await commitKv(() =>
      kv.atomic().check({ key: ["taken"], versionstamp: null }).set(["taken"], 2)
    );
    assert.equal(res.ok, false);
  } finally {
    kv.close();
  }
});

Deno.test("toAppError() turns a KV contention error that escaped into service_busy, not internal", () => {
  const e = toAppError(new TypeError("database is locked"));
  assert.equal(e.code, "service_busy");
  assert.equal(e.status, 503);
});
