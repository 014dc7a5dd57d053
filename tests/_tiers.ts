/**
 * The test tiers (issue #23), as one table: which test file runs in `deno task test:unit`,
 * `test:fast` and `test:sim`. `deno task test` runs every file, whatever its tier.
 *
 * Why the inner tiers run in one module each (tests/_tier_lib.ts, tests/_tier_http.ts) and not one
 * worker per file: `deno test` starts a fresh isolate for every test file, and loading a file's module
 * graph there (zod, hono, the app) costs about 0.8 s of CPU before its first test runs. Measured on
 * this 2-core box: the 74 `lib/` unit files took 68 s of CPU one worker per file and 11 s in one
 * isolate, the same 361 tests passing (docs/performance.md, "The test tiers").
 *
 * Why a table and not `--ignore` in deno.json: Deno 2.9 applies `--ignore` only to the first of
 * several paths given to `deno test`, and it walks first the path whose parent folder is deepest. The
 * old `test:fast` (`--ignore=lib/…,tests/http/… lib/ tests/http/ …`) walked tests/http/ first, so
 * its six `lib/` exclusions, four of them the seeded simulations, ran in the fast tier (20 min here).
 * Reproduced on a few empty tests: `deno test --ignore=a/one_test.ts,c/d/x_test.ts a/ c/d/` runs
 * a/one_test.ts, in either order of the paths.
 * tests/test_tiers_test.ts holds the table to the tree.
 */

/** The seeded simulations: minutes of CPU, run by `deno task test:sim` (and `deno task test`). */
export const SIMULATIONS: readonly string[] = [
  "lib/analytics/calibration_test.ts",
  "lib/coach/honesty_test.ts",
  "lib/coach/simulation_test.ts",
  "lib/tools/find_correlations_screen_test.ts",
];

/**
 * Files and folders whose tests start a real port, a child process or a browser: only
 * `deno task test` runs them. A test file that calls `startServer`, `Deno.serve`, `Deno.Command`,
 * `startKvConnectServer` or the helpers of tests/_processes.ts belongs here (the tiers test finds it).
 */
export const OUT_OF_PROCESS: readonly string[] = [
  "lib/oauth/client_metadata_document_test.ts",
  "lib/operations/backup_test.ts",
  "tests/browser/",
  "tests/cli/",
  "tests/kv_connect/",
  "tests/multiprocess/",
  "tests/process/",
  "tests/readme_screenshots_test.ts",
  "tests/http/coach_jobs_test.ts",
  "tests/http/data_api_docs_test.ts",
  "tests/http/durability_test.ts",
  "tests/http/kv_deadline_test.ts",
  "tests/http/import_moving_test.ts",
  "tests/http/mcp_conformance_test.ts",
  "tests/http/mcp_sdk_test.ts",
  "tests/http/member_mcp_sdk_test.ts",
  "tests/http/oauth_attacks_test.ts",
  "tests/http/oauth_client_lifetime_test.ts",
  "tests/http/oauth_client_metadata_test.ts",
  "tests/http/oauth_control_chars_test.ts",
  "tests/http/oauth_discovery_test.ts",
  "tests/http/oauth_flow_test.ts",
  "tests/http/oauth_loopback_port_test.ts",
  "tests/http/oauth_replay_race_test.ts",
  "tests/http/oauth_secret_index_test.ts",
  "tests/http/openapi_contract_test.ts",
  "tests/http/openapi_test.ts",
  "tests/http/password_change_test.ts",
  "tests/http/token_scripts_test.ts",
  "tests/http/webapp_import_test.ts",
  "tests/http/webapp_settings_test.ts",
];

/**
 * In-process tests that build a real-sized instance (1,000 members, a three-year member): about half
 * the CPU of the in-process tests/ files, so only `deno task test` runs them.
 */
export const REAL_SIZE: readonly string[] = [
  "tests/big_instance_test.ts",
  "tests/http/deletion_reads_test.ts",
  "tests/http/real_size_test.ts",
];

/** Files that only `deno task test` runs. */
export const FULL_RUN_ONLY: readonly string[] = [...OUT_OF_PROCESS, ...REAL_SIZE];

/** Folders that hold no test of ours. */
const SKIP = new Set([".git", "node_modules", "data", "static", "test-output"]);

/** The repository root. */
export const ROOT = new URL("../", import.meta.url);

function* walk(dir: URL, rel: string): Generator<string> {
  for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (e.isDirectory && !SKIP.has(e.name)) {
      yield* walk(new URL(e.name + "/", dir), `${rel}${e.name}/`);
    } else if (e.isFile && /_test\.tsx?$/.test(e.name)) yield rel + e.name;
  }
}

/** Every test file of the tree, relative to the root, sorted (what `deno task test` runs). */
export function allTestFiles(): string[] {
  return [...walk(ROOT, "")];
}

/** Whether `file` is named by an entry of `table` (a file, or a folder ending in `/`). */
export function listed(table: readonly string[], file: string): boolean {
  return table.some((entry) => entry.endsWith("/") ? file.startsWith(entry) : file === entry);
}

/** The tiers a newcomer runs. `fast` is `unit` plus the in-process tests under tests/ but REAL_SIZE. */
export type Tier = "unit" | "fast" | "sim";

/** The test files of a tier, relative to the root. */
export function tierFiles(tier: Tier): string[] {
  const all = allTestFiles();
  if (tier === "sim") return all.filter((f) => listed(SIMULATIONS, f));
  const inProcess = all.filter((f) => !listed(SIMULATIONS, f) && !listed(FULL_RUN_ONLY, f));
  return tier === "unit" ? inProcess.filter((f) => f.startsWith("lib/")) : inProcess;
}

/** Loads the given test files into this isolate, so `deno test` runs their tests here. */
export async function importAll(files: string[]): Promise<void> {
  for (const file of files) await import(new URL(file, ROOT).href);
}
