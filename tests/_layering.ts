/**
 * The layer table of the codebase and a checker for it (tests/layering_test.ts runs it on the real
 * tree and on a fixture that breaks it). Each module group may import only the groups listed for
 * it; imports inside a group are free. A group missing from the table, or a module in the `lib/`
 * root, is itself a violation, so a new folder has to be placed before it can be used.
 * Test support (`*_test.ts`, `*_test.tsx`, `_test_*.ts`) is exempt: tests may reach any layer.
 */

const FOUNDATION = ["lib/foundation"];
const DOMAIN = [...FOUNDATION, "lib/policy", "lib/accounts", "lib/record"];
const READ = [...DOMAIN, "lib/analytics", "lib/tools"];
const LIB_BELOW_HTTP = [
  ...READ,
  "lib/oauth",
  "lib/mcp",
  "lib/sandbox",
  "lib/coach",
  "lib/actions",
  "lib/documents",
  "lib/charts",
  "lib/webapp",
  "lib/notify",
];

const HTTP = ["lib/http/kernel", "lib/http/mcp", "lib/http/oauth", "lib/http/web"];

/**
 * Which groups each group may import (foundation ← record ← analytics ← tools ← mcp ← http /
 * sandbox / documents; accounts and OAuth sit under the record, whose access owns their caches).
 */
export const ALLOWED_EDGES: Readonly<Record<string, readonly string[]>> = {
  "lib/foundation": [],
  "lib/policy": FOUNDATION,
  // Deleting an account clears its rate-limit counters, so accounts sit above the policies.
  "lib/accounts": [...FOUNDATION, "lib/policy"],
  "lib/oauth": [...FOUNDATION, "lib/policy", "lib/accounts"],
  // MemberAccess (lib/record/member_access.ts) owns both token caches, the OAuth one too (#23).
  "lib/record": [...FOUNDATION, "lib/policy", "lib/accounts", "lib/oauth"],
  "lib/analytics": [...FOUNDATION, "lib/record"],
  "lib/tools": [...FOUNDATION, "lib/record", "lib/analytics"],
  "lib/mcp": [...FOUNDATION, "lib/record", "lib/tools"],
  // The sandbox member's insights are the coach's own, at paid depth (issue #12).
  "lib/sandbox": [...FOUNDATION, "lib/record", "lib/analytics", "lib/tools", "lib/coach"],
  // The coach (issue #12) reads the record through the same analytics and tools as agents; the
  // member's tier is on the account (lib/accounts, below the record).
  "lib/coach": [...FOUNDATION, "lib/accounts", "lib/record", "lib/analytics", "lib/tools"],
  // Reminders by Web Push and e-mail (issue #24): they read the record as the coach does.
  "lib/notify": [...FOUNDATION, "lib/accounts", "lib/record", "lib/analytics"],
  // The action tables of /api/auth, /api/tokens and /api/proxy (dismissInsight: lib/coach).
  "lib/actions": [...READ, "lib/oauth", "lib/coach", "lib/notify"],
  // Operator commands (issue #14: `deno task admin`, start-up's data-format check): backups,
  // migrations and member care through the accounts' own functions. Only main.ts and scripts/
  // import it; no request handler does.
  "lib/operations": DOMAIN,
  // The published documents (OpenAPI, discovery, docs, llms, CLI package) describe every layer.
  "lib/documents": [...READ, "lib/oauth", "lib/mcp", "lib/actions"],
  // The web app's chart geometry (issue #11): scales and paths from the record and analytics.
  "lib/charts": READ,
  // What the web app's pages show (issue #11), computed from the record, the tools and actions.
  "lib/webapp": [...READ, "lib/charts", "lib/actions", "lib/oauth", "lib/notify"],
  // The HTTP layer (issue #23) is four sub-folders: a kernel (Hono context, credentials, bodies,
  // media types, the error core, rate limits, headers, rendering) and three surfaces over it that
  // never import one another: MCP's transport, OAuth's browser side, and the member web app.
  "lib/http/kernel": [...LIB_BELOW_HTTP, "islands", "components"],
  "lib/http/mcp": [...LIB_BELOW_HTTP, "lib/http/kernel"],
  "lib/http/oauth": [...LIB_BELOW_HTTP, "lib/http/kernel", "islands", "components"],
  "lib/http/web": [...LIB_BELOW_HTTP, "lib/http/kernel", "islands", "components"],
  // Web-app pages (issue #11): components are props in → markup out over lib/; never HTTP.
  "components": [...LIB_BELOW_HTTP],
  // An island hydrates a component tree (the Settings island is components/SettingsPage.tsx,
  // issue #25); the page that places it is a route's or lib/http's, so components never import
  // islands and the two never form a cycle.
  "islands": [...LIB_BELOW_HTTP, "components"],
  "routes": [...LIB_BELOW_HTTP, ...HTTP, "components", "islands"],
};

/** One import that breaks the table. */
export interface Violation {
  from: string;
  to: string;
  /** Why: the group pair, or "lib root" / "unplaced group". */
  rule: string;
}

const SOURCE_DIRS = ["lib", "routes", "components", "islands"];
const IMPORT_RE = /(?:^|\s)(?:import|export)\s[^;]*?from\s*["'](\.{1,2}\/[^"']+)["']/g;

async function* walk(dir: URL, rel: string): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1);
  } catch {
    return; // a folder that does not exist (yet) holds no modules
  }
  for (const e of entries) {
    if (e.isDirectory) yield* walk(new URL(e.name + "/", dir), `${rel}${e.name}/`);
    else if (/\.tsx?$/.test(e.name)) yield rel + e.name;
  }
}

function isTestSupport(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return /_test\.tsx?$/.test(name) || name.startsWith("_test");
}

/** The group of a path relative to the root: `lib/<folder>`, `lib:<file>` in the root, or the top folder. */
export function groupOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] !== "lib") return parts[0];
  // lib/http is split by surface (issue #23): each sub-folder is a group of its own.
  if (parts[1] === "http" && parts.length > 3) return `lib/http/${parts[2]}`;
  return parts.length > 2 ? `lib/${parts[1]}` : `lib:${parts[1]}`;
}

function resolve(from: string, spec: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const p of spec.split("/")) {
    if (p === "..") parts.pop();
    else if (p !== ".") parts.push(p);
  }
  return parts.join("/");
}

/** Every import under `root` (a folder URL ending in `/`) that the table does not allow. */
export async function layeringViolations(root: URL): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const dir of SOURCE_DIRS) {
    for await (const file of walk(new URL(dir + "/", root), dir + "/")) {
      if (isTestSupport(file)) continue;
      const from = groupOf(file);
      if (from.startsWith("lib:")) violations.push({ from: file, to: "", rule: "lib root" });
      const allowed = ALLOWED_EDGES[from];
      if (!allowed && !from.startsWith("lib:")) {
        violations.push({ from: file, to: "", rule: `unplaced group ${from}` });
      }
      const text = await Deno.readTextFile(new URL(file, root));
      for (const [, spec] of text.matchAll(IMPORT_RE)) {
        const target = resolve(file, spec);
        const to = groupOf(target);
        if (to === from || !allowed || to === "deno.json") continue;
        if (!allowed.includes(to)) {
          violations.push({ from: file, to: target, rule: `${from} → ${to}` });
        }
      }
    }
  }
  return violations;
}
