/**
 * The Pauses page and the Columns page's Group field without a browser (issue #25): form posts as
 * a browser without JavaScript sends them, read back through `/api/proxy`.
 */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { csrfOf, proxyAs, signedUpBrowser } from "./_web.ts";

Deno.test("POST /app/pauses", async (t) => {
  await using app = await makeApp();
  const b = await signedUpBrowser(app, "pauser");
  await proxyAs(b, { action: "createColumn", key: "read", label: "Read", type: "boolean" });
  const csrf = csrfOf((await b.get("/app/pauses")).html);

  await t.step("a pause of one ticked column is added and listed in words", async () => {
    const res = await b.post("/app/pauses", {
      csrf,
      do: "add",
      start: "2026-08-12",
      end: "2026-08-19",
      "col.read": "on",
    });
    assert.equal(res.status, 303);
    const { pauses } = await proxyAs(b, { action: "listPauses" });
    assert.deepEqual(pauses.map((p: { columns: string[] }) => p.columns), [["read"]]);
    const page = await b.get("/app/pauses");
    assert.match(page.html, /Paused Wednesday 12 August 2026 to Wednesday 19 August 2026\./);
    assert.match(page.html, /Delete<span class="visually-hidden"> the pause Wednesday 12 August/);
  });

  await t.step("a last day before the first is a 422 beside the field, nothing added", async () => {
    const res = await b.post("/app/pauses", {
      csrf,
      do: "add",
      start: "2026-08-19",
      end: "2026-08-12",
    });
    assert.equal(res.status, 422);
    assert.match(res.html, /id="p-end-error"[^>]*>The last day is before the first/);
    assert.equal((await proxyAs(b, { action: "listPauses" })).pauses.length, 1);
  });

  await t.step("a pause too far ahead is the store's 422 message, never a 500", async () => {
    const res = await b.post("/app/pauses", {
      csrf,
      do: "add",
      start: "2030-01-01",
      end: "2030-01-02",
    });
    assert.equal(res.status, 422);
    assert.match(res.html, /A pause ends at most 366 days after today/);
  });

  await t.step("Delete removes the pause", async () => {
    const { pauses } = await proxyAs(b, { action: "listPauses" });
    const res = await b.post("/app/pauses", { csrf, do: "delete", id: pauses[0].id });
    assert.equal(res.status, 303);
    assert.deepEqual((await proxyAs(b, { action: "listPauses" })).pauses, []);
  });
});

Deno.test("POST /app/columns: the Group field", async (t) => {
  await using app = await makeApp();
  const b = await signedUpBrowser(app, "grouper");
  const csrf = csrfOf((await b.get("/app/columns")).html);

  await t.step("a new column gets the group typed", async () => {
    const res = await b.post("/app/columns", {
      csrf,
      do: "add",
      label: "Floss",
      type: "boolean",
      group: " Evening ",
    });
    assert.equal(res.status, 303);
    const { columns } = await proxyAs(b, { action: "listColumns" });
    assert.equal(columns[0].group, "Evening");
  });

  await t.step("a group over 40 characters is a 422 beside the field", async () => {
    const res = await b.post("/app/columns", {
      csrf,
      do: "edit",
      key: "floss",
      label: "Floss",
      group: "g".repeat(41),
    });
    assert.equal(res.status, 422);
    assert.match(res.html, /At most 40 characters \(this one has 41\)/);
  });

  await t.step("an emptied Group takes the column out of its group", async () => {
    const res = await b.post("/app/columns", {
      csrf,
      do: "edit",
      key: "floss",
      label: "Floss",
      group: "",
      goal_op: "true",
    });
    assert.equal(res.status, 303);
    const { columns } = await proxyAs(b, { action: "listColumns" });
    assert.equal(columns[0].group, undefined);
  });
});
