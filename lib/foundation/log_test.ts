import assert from "node:assert/strict";
import { LineWriter, MemberHasher, redactSecrets, RequestLog } from "./log.ts";

Deno.test("redactSecrets() masks tokens, bearer headers and secret fields", () => {
  const text = "bad rt_ro_abcDEF123_-x and rt_ses_zzz, Bearer abc.def, ?code=XYZ&password=hunter2";
  const out = redactSecrets(text);
  for (const secret of ["abcDEF123", "zzz", "abc.def", "XYZ", "hunter2"]) {
    assert.ok(!out.includes(secret), out);
  }
  assert.match(out, /rt_ro_\[redacted\]/);
});

Deno.test("MemberHasher.hash() is salted, stable and 16 hex digits", async () => {
  const a = await new MemberHasher("one").hash("member-1");
  assert.match(a, /^[0-9a-f]{16}$/);
  assert.equal(await new MemberHasher("one").hash("member-1"), a);
  assert.notEqual(await new MemberHasher("two").hash("member-1"), a);
});

Deno.test("RequestLog.request() writes one JSON object per line", async () => {
  const lines: string[] = [];
  const writer = new LineWriter((b) =>
    lines.push(...new TextDecoder().decode(b).trimEnd().split("\n"))
  );
  const log = new RequestLog({ format: "json", salt: "s", writer });
  const base = {
    requestId: "r1",
    method: "GET",
    route: "/docs/:slug",
    status: 200,
    durationMs: 1.5,
  };
  log.request({ ...base, aborted: false }, undefined);
  log.request({ ...base, aborted: true }, "member-1");
  await new Promise((r) => setTimeout(r, 30));
  log.flush();
  assert.equal(lines.length, 2);
  const [first, second] = lines.map((l) => JSON.parse(l));
  assert.equal(first.member, null);
  assert.equal(second.aborted, true);
  assert.equal(second.member, await new MemberHasher("s").hash("member-1"));
  assert.ok(!lines.join("").includes("member-1"));
});
