/**
 * `writePauses()`, the entry point a JSON import of our export calls (issue #25, the `moving`
 * lane after merge): it replaces a member's pauses as a whole, checks each one as `createPause`
 * does, and writes nothing when one is refused. Read back through `/api/proxy`.
 */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { keys } from "../../lib/foundation/kv_keys.ts";
import { AppError } from "../../lib/foundation/errors.ts";
import { writePauses } from "../../lib/record/pauses.ts";
import { proxyAs, signedUpBrowser } from "./_web.ts";

Deno.test("writePauses() replaces a member's pauses, all or nothing", async () => {
  await using app = await makeApp();
  const b = await signedUpBrowser(app, "mover");
  await proxyAs(b, { action: "createColumn", key: "read", label: "Read", type: "boolean" });
  await proxyAs(b, { action: "createPause", start: "2026-01-01", end: "2026-01-02" });
  const memberId = (await app.kv.get<string>(keys.username("mover"))).value!;
  const ctx = { kv: app.kv, clock: app.clock };

  const written = await writePauses(ctx, memberId, [
    { start: "2026-08-12", end: "2026-08-19", columns: ["read"] },
    { start: "2026-10-01", end: "2026-10-03" },
  ]);
  assert.deepEqual(written.map((p) => p.start), ["2026-10-01", "2026-08-12"]);
  const listed = (await proxyAs(b, { action: "listPauses" })).pauses;
  assert.deepEqual(listed, written);

  await assert.rejects(
    writePauses(ctx, memberId, [
      { start: "2026-03-01", end: "2026-03-02" },
      { start: "2026-03-05", end: "2026-03-06", columns: ["nope"] },
    ]),
    (err) => err instanceof AppError && err.code === "unknown_column",
  );
  assert.deepEqual((await proxyAs(b, { action: "listPauses" })).pauses, written);
});
