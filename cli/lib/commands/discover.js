// @ts-check
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { request } from "../client.js";
import { CliError, EXIT } from "../errors.js";

/**
 * Every developer document, and where it is saved. Every one is required: the service publishes
 * all seven. (`optional: true` would report a 404 as absent rather than as a failure.)
 */
export const DOCUMENTS = [
  { path: "/openapi.json", file: "openapi.json", optional: false },
  {
    path: "/.well-known/api-catalog",
    file: "api-catalog.json",
    optional: false,
  },
  { path: "/.well-known/mcp.json", file: "mcp.json", optional: false },
  {
    path: "/.well-known/oauth-protected-resource",
    file: "oauth-protected-resource.json",
    optional: false,
  },
  {
    path: "/.well-known/oauth-authorization-server",
    file: "oauth-authorization-server.json",
    optional: false,
  },
  { path: "/llms.txt", file: "llms.txt", optional: false },
  { path: "/llms-full.txt", file: "llms-full.txt", optional: false },
];

/**
 * The docs pages' Markdown URLs named in llms.txt: every link to `<base>/docs/<slug>.md`.
 * @param {string} llmsTxt
 * @param {string} baseUrl
 * @returns {string[]}
 */
export function docPageUrls(llmsTxt, baseUrl) {
  const urls = new Set();
  for (const match of llmsTxt.matchAll(/\]\(([^)\s]+)\)/g)) {
    const url = match[1];
    if (
      url.startsWith(`${baseUrl}/docs/`) && /\/docs\/[a-z0-9-]+\.md$/.test(url)
    ) urls.add(url);
  }
  return [...urls];
}

/**
 * @param {number} bytes
 */
function size(bytes) {
  return bytes < 1000 ? `${bytes} B` : `${(bytes / 1000).toFixed(1)} kB`;
}

/**
 * `routine-tracker discover`: saves every developer document into `outDir` and writes
 * `index.json` describing what was fetched.
 * @param {string} baseUrl
 * @param {string} outDir
 * @param {(line: string) => void} print
 * @returns {Promise<number>} exit code
 */
export async function discover(baseUrl, outDir, print) {
  await mkdir(join(outDir, "docs"), { recursive: true });
  /** @type {{ url: string, file: string | null, status: number, contentType: string | null, bytes: number, etag: string | null }[]} */
  const index = [];
  /** @type {string[]} */
  const missing = [];
  /** @type {string[]} */
  const failed = [];
  let llmsTxt = "";

  /**
   * @param {string} url
   * @param {string} file
   * @param {boolean} optional
   */
  async function fetchOne(url, file, optional) {
    const res = await request(url, {
      headers: { "User-Agent": "routine-tracker-cli" },
    });
    const contentType = res.headers.get("content-type");
    if (res.status === 429) {
      throw new CliError(
        `Rate limited while fetching ${url}. Wait ${
          res.headers.get("retry-after") ?? "60"
        } seconds (Retry-After) and run discover again.`,
        EXIT.RATE_LIMITED,
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      const label = res.status === 404 && optional ? "absent" : "FAILED";
      print(
        `  ${label.padEnd(6)} ${file.padEnd(36)} HTTP ${res.status}${
          res.status === 404 && optional ? " (not published by this instance)" : ""
        }`,
      );
      (label === "absent" ? missing : failed).push(file);
      index.push({
        url,
        file: null,
        status: res.status,
        contentType,
        bytes: 0,
        etag: null,
      });
      return null;
    }
    const body = new Uint8Array(await res.arrayBuffer());
    await writeFile(join(outDir, file), body);
    print(
      `  saved  ${file.padEnd(36)} ${(contentType ?? "").split(";")[0].padEnd(26)} ${
        size(body.byteLength)
      }`,
    );
    index.push({
      url,
      file,
      status: res.status,
      contentType,
      bytes: body.byteLength,
      etag: res.headers.get("etag"),
    });
    return new TextDecoder().decode(body);
  }

  print(`Fetching the developer documents of ${baseUrl} into ${outDir}`);
  for (const doc of DOCUMENTS) {
    const text = await fetchOne(baseUrl + doc.path, doc.file, doc.optional);
    if (doc.path === "/llms.txt" && text) llmsTxt = text;
  }
  const pages = docPageUrls(llmsTxt, baseUrl);
  if (pages.length === 0) {
    print("  no documentation pages listed (llms.txt missing or empty)");
  }
  for (const url of pages) {
    await fetchOne(url, `docs/${url.slice(url.lastIndexOf("/") + 1)}`, false);
  }
  await writeFile(
    join(outDir, "index.json"),
    JSON.stringify(
      { baseUrl, fetchedAt: new Date().toISOString(), documents: index },
      null,
      2,
    ) +
      "\n",
  );

  const saved = index.filter((d) => d.file !== null).length;
  const notes = [
    `${missing.length} not published${missing.length ? `: ${missing.join(", ")}` : ""}`,
    `${failed.length} failed${failed.length ? `: ${failed.join(", ")}` : ""}`,
  ];
  print(
    `Saved ${saved} documents (${pages.length} docs pages) to ${outDir} (${notes.join("; ")}).`,
  );
  return failed.length ? EXIT.FAILURE : EXIT.OK;
}
