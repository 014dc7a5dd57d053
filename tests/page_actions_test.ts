/**
 * Issue #23, "one home and one pattern per page": a page spends exactly the quota its REST twin
 * spends because every page write runs through `runPageAction` (lib/http/web/page_actions.ts) over the
 * endpoint tables REST serves. A page controller therefore never counts a quota by hand
 * (`enforceRateLimit`) and never calls lib/accounts; lib/webapp keeps form schemas and view models
 * and runs nothing (no `RunAction` callback handed down to it). A source scan, like
 * tests/layering_test.ts, so a new page cannot slip back.
 */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** The plumbing a controller calls; these may count quotas and read accounts themselves. */
const PLUMBING = new Set([
  "lib/http/web/browser_session.ts",
  "lib/http/web/page_actions.ts",
  "lib/http/web/page_forms.ts",
  "lib/http/web/pages.ts",
  "lib/http/page_auth.ts",
]);

function* sources(dir: string): Generator<string> {
  for (
    const e of [...Deno.readDirSync(new URL(dir, ROOT))].sort((a, b) => a.name < b.name ? -1 : 1)
  ) {
    const path = `${dir}${e.name}`;
    if (e.isDirectory) yield* sources(`${path}/`);
    else if (/\.tsx?$/.test(e.name) && !/_test\.tsx?$/.test(e.name)) yield path;
  }
}

/**
 * A page controller: a module of routes/ or lib/http/ that handles a member web-app request —
 * it imports the page wrapper or the signed-in member (`htmlPage`, `requirePageMember`,
 * `optionalPageMember`) or checks a form post (`verifyFormPost`).
 */
function isPageController(path: string, text: string): boolean {
  if (PLUMBING.has(path)) return false;
  return /\b(htmlPage|requirePageMember|optionalPageMember|verifyFormPost)\b/.test(text) &&
    /from\s+["'][./]*(lib\/http\/(?:web\/)?|\.\/)(browser_session|pages|page_auth)\.tsx?["']/.test(
      text,
    );
}

/** What a page controller must not do, with the reason. */
function controllerOffences(path: string, text: string): string[] {
  const out: string[] = [];
  if (/\benforceRateLimit\b/.test(text)) out.push(`${path}: counts a quota by hand`);
  if (/from\s+["'][./]*(lib\/)?accounts\//.test(text)) out.push(`${path}: imports lib/accounts`);
  return out;
}

Deno.test("page controllers: every write goes through runPageAction, never enforceRateLimit or lib/accounts", () => {
  const controllers: string[] = [];
  const offences: string[] = [];
  for (const dir of ["routes/", "lib/http/"]) {
    for (const path of sources(dir)) {
      const text = Deno.readTextFileSync(new URL(path, ROOT));
      if (!isPageController(path, text)) continue;
      controllers.push(path);
      offences.push(...controllerOffences(path, text));
    }
  }
  // The scan finds the pages it guards (Today, Settings, sign-in), so it cannot pass by finding none.
  for (
    const page of ["routes/app/index.tsx", "routes/app/settings/tokens.ts", "routes/signin.tsx"]
  ) {
    assert.ok(controllers.includes(page), `${page} is not recognised as a page controller`);
  }
  assert.deepEqual(offences, []);
});

Deno.test("page controllers: lib/webapp runs nothing (no RunAction callback, no account change)", () => {
  const offences: string[] = [];
  for (const path of sources("lib/webapp/")) {
    const text = Deno.readTextFileSync(new URL(path, ROOT));
    if (/\bRunAction\b/.test(text)) offences.push(`${path}: takes a RunAction callback`);
    if (
      /\b(changePassword|deleteAccount|createApiToken|revokeApiToken|registerMember|loginMember)\(/
        .test(text)
    ) {
      offences.push(`${path}: calls an account change itself`);
    }
  }
  assert.deepEqual(offences, []);
});
