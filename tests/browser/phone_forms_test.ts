/**
 * The member's forms on a 360 × 740 phone, as a demanding member meets them (issue #13 audit of
 * DESIGN §14): focus never hides behind Today's sticky Save bar (WCAG 2.4.11), after a POST the
 * answer — an error beside its field, or a token shown once — is on screen without scrolling, with
 * JavaScript on or off; the address a POST leaves in the bar still opens a page when reloaded as a
 * GET; and the column form's messages speak the member's words beside the field they are about.
 */

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { type BrowserRun, browserTest, signUp } from "./_browser.ts";

const PHONE = { width: 360, height: 740 };
/** What tells a member a form failed: the summary at the form's top, or the field marked invalid. */
const ERROR = "[role=alert], [aria-invalid=true]";

/**
 * A signed-up member with the starter columns, on a phone, JavaScript on or off. The clock moves a
 * minute first: sign-ups and password tries share the `auth` quota of 10 a minute per address.
 */
async function phoneMember(
  { browser, base, server }: BrowserRun,
  name: string,
  javaScriptEnabled = true,
) {
  server.clock.advance(61_000);
  const context = await browser.newContext({
    viewport: PHONE,
    timezoneId: "UTC",
    javaScriptEnabled,
  });
  const page = await context.newPage();
  await signUp(page, base, name);
  await page.getByRole("button", { name: "Add all starter columns" }).click();
  await page.waitForLoadState("load");
  return { context, page };
}

/** Whether the first element `selector` matches lies inside the viewport (at least partly). */
function onScreen(page: Page, selector: string): Promise<string> {
  return page.locator(selector).first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    const visible = r.bottom > 0 && r.top < innerHeight;
    return visible ? "on screen" : `off screen (top ${Math.round(r.top)}, scrollY ${scrollY})`;
  });
}

browserTest("Phone forms: focus, answers on screen, reloadable addresses, column messages", async (
  run,
  t,
) => {
  const { base } = run;
  await t.step(
    "Today at 360 px: no control Tab reaches is hidden behind the Save bar",
    async () => {
      const { context, page } = await phoneMember(run, "tabber");
      await page.goto(`${base}/app?day=2026-11-01`);
      const hidden: string[] = [];
      let stops = 0;
      await page.getByRole("link", { name: "← Previous day" }).focus();
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press("Tab");
        // The centre of the focused control must be the control (or its label), not the bar.
        const seen = await page.evaluate(() => {
          const el = document.activeElement;
          if (!el || !el.closest("form[method=post] .entry-list")) return null;
          const r = el.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          const own = hit && (el.contains(hit) || el.closest("label")?.contains(hit));
          return own ? "" : `${el.getAttribute("name") ?? el.textContent} under ${hit?.className}`;
        });
        if (seen === null) continue;
        stops++;
        if (seen) hidden.push(seen);
      }
      await context.close();
      assert.ok(stops >= 10, `only ${stops} tab stops in the columns`);
      assert.deepEqual(hidden, []);
    },
  );

  for (const javaScriptEnabled of [true, false]) {
    const js = javaScriptEnabled ? "JavaScript on" : "JavaScript off";
    await t.step(`360 px, ${js}: after a POST its answer is on screen`, async () => {
      const { context, page } = await phoneMember(
        run,
        javaScriptEnabled ? "phone_js" : "phone_nojs",
        javaScriptEnabled,
      );
      const off: string[] = [];
      const check = async (what: string, selector: string) => {
        await page.waitForLoadState("load");
        const where = await onScreen(page, selector);
        if (where !== "on screen") off.push(`${what}: ${where}`);
      };
      await page.goto(`${base}/app/columns`);
      const add = page.locator("form#add");
      await add.getByLabel("Label", { exact: true }).fill("Reading");
      await add.getByLabel("Kind").selectOption("at_least");
      await add.getByLabel("Number", { exact: true }).fill("lots");
      await add.getByRole("button", { name: "Add column" }).click();
      await check("Columns, add, goal not a number", ERROR);
      assert.equal(
        await page.locator("form#add").getByLabel("Label", { exact: true }).inputValue(),
        "Reading",
      );

      await page.goto(`${base}/app/columns`);
      await page.getByText("Edit Workout").click();
      const edit = page.locator("details[open] form");
      await edit.getByLabel("Label", { exact: true }).fill("");
      await edit.getByRole("button", { name: "Save changes" }).click();
      await check("Columns, edit Workout, empty label", ERROR);

      const settings = async (act: () => Promise<void>, what: string, selector: string) => {
        await page.goto(`${base}/app/settings`);
        await act();
        await check(what, selector);
      };
      await settings(
        () => page.getByRole("button", { name: "Create token" }).click(),
        "Settings, token without a name",
        ERROR,
      );
      await settings(
        async () => {
          await page.getByLabel("Token name").fill("Phone script");
          await page.getByRole("button", { name: "Create token" }).click();
        },
        "Settings, the new token shown once",
        "#new-token",
      );
      await settings(
        async () => {
          await page.getByLabel("Current password").fill("not my password");
          await page.getByLabel("New password").fill("another long one");
          await page.getByRole("button", { name: "Change password" }).click();
        },
        "Settings, wrong current password",
        ERROR,
      );
      await settings(
        () => page.getByRole("button", { name: "Import", exact: true }).click(),
        "Settings, import without a file",
        ERROR,
      );
      await settings(
        async () => {
          await page.getByLabel(/Type your username/).fill("someone else");
          await page.getByRole("button", { name: "Delete account" }).click();
        },
        "Settings, delete with the wrong username",
        ERROR,
      );
      assert.equal(
        await page.getByLabel(/Type your username/).inputValue(),
        "someone else",
        "what the member typed is kept",
      );
      await context.close();
      assert.deepEqual(off, []);
    });
  }

  await t.step("the address a settings POST leaves in the bar opens a page as a GET", async () => {
    const { context, page } = await phoneMember(run, "reloader");
    const wrong: string[] = [];
    for (
      const path of [
        "/app/settings/profile",
        "/app/settings/tokens",
        "/app/settings/tokens/revoke",
        "/app/settings/apps/revoke",
        "/app/settings/import",
        "/app/settings/password",
        "/app/settings/delete",
      ]
    ) {
      const res = await page.goto(base + path);
      const type = res?.headers()["content-type"] ?? "";
      const h1 = type.startsWith("text/html")
        ? await page.getByRole("heading", { level: 1 }).innerText()
        : "";
      if (res?.status() !== 200 || !type.startsWith("text/html") || h1 !== "Settings") {
        wrong.push(`${path}: ${res?.status()} ${type} "${h1}"`);
      }
    }
    await context.close();
    assert.deepEqual(wrong, []);
  });

  await t.step("after Save, reload and Back send no POST again (Post/Redirect/Get)", async () => {
    const { context, page } = await phoneMember(run, "reloadsave", false);
    const posts: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST") posts.push(new URL(r.url()).pathname);
    });
    await page.goto(`${base}/app/columns`);
    await page.goto(`${base}/app`);
    await page.getByRole("textbox", { name: "Sleep" }).fill("7.25");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.waitForLoadState("load");
    assert.deepEqual(posts, ["/app"]);
    await page.reload();
    await page.goBack();
    await page.goForward();
    assert.deepEqual(posts, ["/app"], "no second POST");
    assert.equal(await page.getByRole("textbox", { name: "Sleep" }).inputValue(), "7.25");
    await context.close();
  });

  await t.step(
    "a day that is not a date, or lies ahead: Today says so beside the field",
    async () => {
      const { context, page } = await phoneMember(run, "dayfinder");
      page.setDefaultTimeout(3000); // on a page without the field, fail fast
      const wrong: string[] = [];
      for (
        const [day, message, kept] of [
          ["2027-01-01", /after today/i, "2027-01-01"],
          ["2026-02-30", /not a date/i, ""],
          ["yesterday", /not a date/i, ""],
        ] as const
      ) {
        const res = await page.goto(`${base}/app?day=${day}`);
        const h1 = await page.getByRole("heading", { level: 1 }).innerText();
        const field = page.getByLabel("Log another day");
        const said = await field.evaluate((el) =>
          (el.getAttribute("aria-describedby") ?? "").split(" ")
            .map((id) => document.getElementById(id)?.textContent ?? "").join(" ")
        ).catch(() => "(no field)");
        const got = [
          res?.status(),
          h1,
          await page.getByRole("button", { name: "Sign out" }).count(),
          await field.getAttribute("aria-invalid").catch(() => null),
          message.test(said),
          await field.inputValue().catch(() => "(no field)"),
          await onScreen(page, "[role=alert]").catch(() => "no alert"),
        ];
        const want = [400, "Today", 1, "true", true, kept, "on screen"];
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          wrong.push(`?day=${day}: ${JSON.stringify(got)} (said "${said}")`);
        }
      }
      await context.close();
      assert.deepEqual(wrong, []);
    },
  );

  await t.step("the column form: member's words, beside the field they are about", async () => {
    const { context, page } = await phoneMember(run, "columnist");
    const tries: {
      what: string;
      fill: (form: ReturnType<Page["locator"]>) => Promise<void>;
      field: string;
      message: RegExp;
    }[] = [
      {
        what: "a scale from 5 to 1",
        fill: async (f) => {
          await f.getByLabel("Label", { exact: true }).fill("Energy");
          await f.getByLabel("Type").selectOption("scale");
          await f.getByLabel("Scale from").fill("5");
          await f.getByLabel("Scale to").fill("1");
        },
        field: "Scale to",
        message: /more than/i,
      },
      {
        what: "a “Done” goal on a number column",
        fill: async (f) => {
          await f.getByLabel("Label", { exact: true }).fill("Pages");
          await f.getByLabel("Kind").selectOption("true");
        },
        field: "Kind",
        message: /yes\/no/i,
      },
      {
        what: "an “At least” goal on a yes/no column",
        fill: async (f) => {
          await f.getByLabel("Label", { exact: true }).fill("Flossed");
          await f.getByLabel("Type").selectOption("boolean");
          await f.getByLabel("Kind").selectOption("at_least");
          await f.getByLabel("Number", { exact: true }).fill("1");
        },
        field: "Kind",
        message: /done/i,
      },
      {
        what: "a second column labelled Sleep",
        fill: (f) => f.getByLabel("Label", { exact: true }).fill("sleep"),
        field: "Label",
        message: /already have a column/i,
      },
    ];
    const wrong: string[] = [];
    for (const x of tries) {
      await page.goto(`${base}/app/columns`);
      await x.fill(page.locator("form#add"));
      await page.locator("form#add").getByRole("button", { name: "Add column" }).click();
      await page.waitForLoadState("load");
      const field = page.locator("form#add").getByLabel(x.field, { exact: true });
      const invalid = await field.getAttribute("aria-invalid");
      const said = await field.evaluate((el) =>
        (el.getAttribute("aria-describedby") ?? "").split(" ")
          .map((id) => document.getElementById(id)?.textContent ?? "").join(" ")
      );
      const summary = await page.locator("form#add [role=alert]").innerText().catch(() => "");
      if (invalid !== "true" || !x.message.test(said)) {
        wrong.push(`${x.what}: ${x.field} invalid=${invalid} says "${said}"; summary "${summary}"`);
      }
      if (/scale_m|goal op|\bop\b/i.test(summary)) wrong.push(`${x.what}: jargon "${summary}"`);
    }
    await page.goto(`${base}/app`);
    const labels = await page.getByRole("group", { name: "Sleep" }).count();
    await context.close();
    assert.deepEqual(wrong, []);
    assert.equal(labels, 1, "one Sleep on Today");
  });
});
