/**
 * A page spends exactly the quota its REST twin spends (issue #23): every page write runs the
 * action of the endpoint table REST serves, through `runPageAction` (lib/http/web/page_actions.ts),
 * under that endpoint's rate-limit policy and key. tests/page_actions_test.ts holds the source to
 * it; this holds a client to it on the one page that used to spend none.
 */

import assert from "node:assert/strict";
import { makeApp } from "../_helpers.ts";
import { Browser, csrfOf, signedUpBrowser } from "./_web.ts";

Deno.test("POST /app/settings/delete", async (t) => {
  await using app = await makeApp();

  await t.step(
    "spends the auth quota of the client IP, as POST /api/auth deleteAccount does",
    async () => {
      const b = await signedUpBrowser(app, "quinn"); // one `auth` request of this IP
      const csrf = csrfOf((await b.get("/app/settings")).html);
      // Nine wrong sign-ins spend the rest of the IP's `auth` quota (10 a minute, DESIGN §6).
      for (let i = 0; i < 9; i++) {
        const res = await new Browser(app).post("/signin", {
          username: "nobody",
          password: "wrong",
        });
        assert.equal(res.status, 401);
      }
      const res = await b.post("/app/settings/delete", { csrf, confirmUsername: "quinn" });
      assert.equal(res.status, 429, "the delete is refused once the auth quota is spent");
      assert.ok(res.res.headers.get("retry-after"));
      assert.equal((await b.get("/app/settings")).status, 200, "the account is still there");
    },
  );
});
