import assert from "node:assert/strict";
import { jsonPost, makeApp } from "../_helpers.ts";
import { manualClock } from "../../lib/foundation/clock.ts";
import {
  assertValidDeprecations,
  type Deprecation,
  DEPRECATIONS,
  validateDeprecations,
} from "../../lib/policy/deprecation.ts";
import { createApp } from "../../main.ts";
import { testConfig } from "../../lib/foundation/config.ts";
import { openLimitedKv } from "../_kv_limits.ts";

const FIXTURE: Deprecation[] = [{
  kind: "endpoint",
  target: "/api/proxy",
  deprecatedAt: "2026-12-01T00:00:00Z",
  sunsetPublishedAt: "2027-03-01T00:00:00Z",
  sunsetAt: "2027-09-01T00:00:00Z",
  successor: "/api/records",
  note: "fixture",
}];

Deno.test("deprecation: the registry in force is empty and valid (spec: nothing is deprecated)", () => {
  assert.equal(DEPRECATIONS.length, 0);
  assertValidDeprecations(DEPRECATIONS);
});

Deno.test("deprecation: lifecycle headers follow RFC 9745 and RFC 8594", async (t) => {
  const clock = manualClock(Date.parse("2026-11-30T00:00:00Z"));
  await using a = await makeApp({ clock, deprecations: FIXTURE });
  const call = async (path = "/api/proxy") => {
    const res = await a.request(path, jsonPost({ action: "healthCheck" }));
    await res.body?.cancel();
    return res;
  };

  await t.step("active: no Deprecation header before the date", async () => {
    const res = await call();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("deprecation"), null);
    assert.equal(res.headers.get("sunset"), null);
  });

  await t.step(
    "deprecated: Deprecation @epoch and a deprecation Link, same behaviour",
    async () => {
      clock.set(Date.parse("2026-12-15T00:00:00Z"));
      const res = await call();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("deprecation"), `@${Date.parse("2026-12-01T00:00:00Z") / 1000}`);
      assert.match(
        res.headers.get("link") ?? "",
        /<http:\/\/localhost:8000\/docs\/versioning>; rel="deprecation"; type="text\/html"/,
      );
      assert.equal(res.headers.get("sunset"), null);
    },
  );

  await t.step("the /api/v1 alias is the same endpoint", async () => {
    const res = await call("/api/v1/proxy");
    assert.match(res.headers.get("deprecation") ?? "", /^@\d+$/);
  });

  await t.step(
    "sunset scheduled: Sunset as an HTTP-date in GMT, and successor-version",
    async () => {
      clock.set(Date.parse("2027-03-02T00:00:00Z"));
      const res = await call();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("sunset"), "Wed, 01 Sep 2027 00:00:00 GMT");
      assert.match(
        res.headers.get("link") ?? "",
        /<http:\/\/localhost:8000\/api\/records>; rel="successor-version"/,
      );
    },
  );

  await t.step("retired: 410 gone after the Sunset moment", async () => {
    clock.set(Date.parse("2027-09-01T00:00:01Z"));
    const res = await a.request("/api/proxy", jsonPost({ action: "healthCheck" }));
    assert.equal(res.status, 410);
    const body = await res.json();
    assert.equal(body.code, "gone");
    assert.equal(res.headers.get("sunset"), "Wed, 01 Sep 2027 00:00:00 GMT");
  });
});

Deno.test("deprecation: start-up refuses a registry that breaks the notice rules", async (t) => {
  const kv = await openLimitedKv();
  try {
    const bad = (patch: Partial<Deprecation>): Deprecation[] => [{ ...FIXTURE[0], ...patch }];
    await t.step("Sunset published under 90 days after deprecation", () => {
      const entries = bad({
        sunsetPublishedAt: "2027-01-15T00:00:00Z",
        sunsetAt: "2027-08-01T00:00:00Z",
      });
      assert.match(validateDeprecations(entries).join(), /at least 90/);
      assert.throws(() => createApp({ kv, config: testConfig(), deprecations: entries }), /90/);
    });
    await t.step("Sunset under 180 days after its publication", () => {
      const entries = bad({ sunsetAt: "2027-06-01T00:00:00Z" });
      assert.match(validateDeprecations(entries).join(), /at least 180/);
      assert.throws(() => createApp({ kv, config: testConfig(), deprecations: entries }), /180/);
    });
    await t.step("Sunset earlier than Deprecation", () => {
      const entries = bad({ deprecatedAt: "2028-01-01T00:00:00Z" });
      assert.match(validateDeprecations(entries).join(), /earlier than Deprecation/);
    });
    await t.step("a valid fixture is accepted", () => {
      assert.deepEqual(validateDeprecations(FIXTURE), []);
    });
  } finally {
    kv.close();
  }
});

Deno.test("deprecation: actions and tools are deprecated and retired like endpoints", async (t) => {
  const fixture: Deprecation[] = [
    {
      kind: "action",
      target: "/api/auth#session",
      deprecatedAt: "2026-12-01T00:00:00Z",
      note: "fixture action",
    },
    {
      kind: "tool",
      target: "get_overview",
      deprecatedAt: "2026-01-01T00:00:00Z",
      sunsetPublishedAt: "2026-04-01T00:00:00Z",
      sunsetAt: "2026-10-01T00:00:00Z",
      note: "fixture tool",
    },
    {
      kind: "tool",
      target: "get_trend",
      deprecatedAt: "2026-09-01T00:00:00Z",
      note: "fixture tool",
    },
  ];
  const clock = manualClock(Date.parse("2026-12-15T00:00:00Z"));
  await using a = await makeApp({ clock, deprecations: fixture });
  const sandbox = (name: string, args: unknown) =>
    a.request(
      "/api/sandbox",
      jsonPost({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    );

  await t.step("a deprecated action answers as before, with the Deprecation header", async () => {
    const res = await a.request("/api/auth", jsonPost({ action: "session" }));
    await res.body?.cancel();
    assert.equal(res.status, 401, "session without a credential is still refused as before");
    assert.equal(res.headers.get("deprecation"), `@${Date.parse("2026-12-01T00:00:00Z") / 1000}`);
  });
  await t.step("other actions of the endpoint carry no header", async () => {
    const res = await a.request("/api/auth", jsonPost({ action: "logout" }));
    await res.body?.cancel();
    assert.equal(res.headers.get("deprecation"), null);
  });
  await t.step("a deprecated tool still answers, with the header", async () => {
    const res = await sandbox("get_trend", { metric: "weight_kg" });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("deprecation") ?? "", /^@\d+$/);
    assert.equal((await res.json()).result.isError, false);
  });
  await t.step("a retired tool is 410 with its Sunset date", async () => {
    const res = await sandbox("get_overview", {});
    assert.equal(res.status, 410);
    assert.equal(res.headers.get("sunset"), "Thu, 01 Oct 2026 00:00:00 GMT");
    const body = await res.json();
    assert.equal(body.error.data.code, "gone");
  });
  await t.step("tools not in the registry are untouched", async () => {
    const res = await sandbox("get_streak", { metric: "mood" });
    await res.body?.cancel();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("deprecation"), null);
  });
});
