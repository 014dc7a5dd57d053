// @ts-check
import { readFile } from "node:fs/promises";
import { CliError, EXIT } from "./errors.js";

/**
 * Reads a JSON file next to the package root, or returns `undefined` when it is absent (the
 * source tree has no `config.json`; the service generates it into each tarball).
 * @param {string} name
 * @returns {Promise<Record<string, unknown> | undefined>}
 */
async function readPackageJson(name) {
  try {
    return JSON.parse(
      await readFile(new URL(`../${name}`, import.meta.url), "utf8"),
    );
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === "ENOENT") {
      return undefined;
    }
    throw err;
  }
}

/** The installed package's version. */
export async function packageVersion() {
  const pkg = await readPackageJson("package.json");
  return String(pkg?.version ?? "0.0.0");
}

/**
 * The base URL to talk to: `--base-url`, else `ROUTINE_TRACKER_BASE_URL`, else the one the
 * serving instance baked into `config.json`. Trailing slashes are dropped.
 * @param {string | undefined} flag
 * @param {Record<string, string | undefined>} env
 * @returns {Promise<string>}
 */
export async function resolveBaseUrl(flag, env) {
  const baked = await readPackageJson("config.json");
  const raw = flag ??
    env.ROUTINE_TRACKER_BASE_URL ?? /** @type {string | undefined} */
    (baked?.baseUrl);
  if (!raw) {
    throw new CliError(
      "No service address: pass --base-url https://… (or set ROUTINE_TRACKER_BASE_URL).",
      EXIT.USAGE,
    );
  }
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(
      `--base-url must be an absolute http(s) URL, got "${raw}".`,
      EXIT.USAGE,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(
      `--base-url must be an http(s) URL, got "${raw}".`,
      EXIT.USAGE,
    );
  }
  return raw.replace(/\/+$/, "");
}
