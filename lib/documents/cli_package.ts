/**
 * The command-line client's npm tarball (spec "What the service does" 8), built from `cli/` with
 * the serving instance's base URL baked in as `package/config.json`, so
 * `npm install -g <base>/cli/routine-tracker-cli.tgz` yields a `routine-tracker` that already
 * knows where it came from. The package is not published to a registry (OpenAPI
 * `x-cli.registryPublished: false`). HTTP-free; the route serves the bytes.
 */

import tarStream from "tar-stream";
import { SERVICE_VERSION } from "../foundation/config.ts";
import { CLI_PACKAGE_NAME } from "./discovery.ts";

const CLI_DIR = new URL("../../cli/", import.meta.url);

/**
 * Fixed entry time, so the same source and base URL always give the same bytes (and ETag).
 * 1985-10-26T08:15:00Z is the date npm itself stamps for reproducible packs.
 */
const ENTRY_MTIME = new Date(Date.UTC(1985, 9, 26, 8, 15, 0));

/** The part of tar-stream's `pack()` this module uses (the package ships no types). */
interface TarPack {
  entry(header: { name: string; mode: number; mtime: Date; type?: "file" }, body: Uint8Array): void;
  finalize(): void;
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
  on(event: "end", listener: () => void): void;
  on(event: "error", listener: (err: Error) => void): void;
}

/** One file of the package, path relative to the package root. */
export interface PackageFile {
  path: string;
  body: Uint8Array;
  executable: boolean;
}

function isShipped(path: string): boolean {
  // Tests and local state stay out of the package; config.json is generated per instance.
  return !path.startsWith("node_modules/") && !/(^|\/)[^/]*[._]test\.[cm]?js$/.test(path) &&
    path !== "config.json" && !path.startsWith("test/");
}

async function listFiles(dir: URL, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const rel = prefix + entry.name;
    if (entry.isDirectory) out.push(...await listFiles(new URL(entry.name + "/", dir), rel + "/"));
    else if (entry.isFile) out.push(rel);
  }
  return out;
}

/**
 * The package's files: the sources under `cli/`, `package.json` stamped with the service version,
 * and a generated `config.json` naming the base URL.
 */
export async function cliPackageFiles(baseUrl: string): Promise<PackageFile[]> {
  const encoder = new TextEncoder();
  const paths = (await listFiles(CLI_DIR)).filter(isShipped).sort();
  const files: PackageFile[] = [];
  for (const path of paths) {
    let body = await Deno.readFile(new URL(path, CLI_DIR));
    if (path === "package.json") {
      const manifest = JSON.parse(new TextDecoder().decode(body));
      if (manifest.name !== CLI_PACKAGE_NAME) {
        throw new Error(
          `cli/package.json names "${manifest.name}", expected "${CLI_PACKAGE_NAME}"`,
        );
      }
      manifest.version = SERVICE_VERSION;
      body = encoder.encode(JSON.stringify(manifest, null, 2) + "\n");
    }
    files.push({ path, body, executable: path.startsWith("bin/") });
  }
  const config = { baseUrl, serviceVersion: SERVICE_VERSION };
  files.push({
    path: "config.json",
    body: encoder.encode(JSON.stringify(config, null, 2) + "\n"),
    executable: false,
  });
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Packs files as npm does: a ustar archive whose entries sit under `package/`. */
export function packTar(files: readonly PackageFile[]): Promise<Uint8Array> {
  const pack = tarStream.pack() as unknown as TarPack;
  const chunks: Uint8Array[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on("data", (chunk) => chunks.push(chunk));
    pack.on("end", resolve);
    pack.on("error", reject);
  });
  for (const file of files) {
    pack.entry({
      name: `package/${file.path}`,
      mode: file.executable ? 0o755 : 0o644,
      mtime: ENTRY_MTIME,
      type: "file",
    }, file.body);
  }
  pack.finalize();
  return done.then(() => concat(chunks));
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/** Gzips bytes with the runtime's `CompressionStream`. */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The gzipped npm tarball of the CLI for the instance at `baseUrl`. */
export async function buildCliTarball(baseUrl: string): Promise<Uint8Array> {
  return await gzip(await packTar(await cliPackageFiles(baseUrl)));
}
