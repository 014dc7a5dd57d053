/**
 * `deno task architecture`: regenerates the storage-schema section of `docs/architecture.md` from
 * the one place the keys are defined, `lib/foundation/kv_keys.ts` (its doc table gives each key's
 * parts, value and TTL; the modules that use each key are found by scanning `lib/`).
 * `tests/architecture_doc_test.ts` fails when the committed section is stale.
 */

const ROOT = new URL("../", import.meta.url);
const KV_KEYS = "lib/foundation/kv_keys.ts";
const BEGIN = "<!-- generated:kv-keys -->";
const END = "<!-- /generated:kv-keys -->";

function libSources(dir: URL, rel: string): string[] {
  const out: string[] = [];
  for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (e.isDirectory) out.push(...libSources(new URL(e.name + "/", dir), `${rel}${e.name}/`));
    else if (/\.tsx?$/.test(e.name) && !/_test\.ts$|^_test/.test(e.name)) out.push(rel + e.name);
  }
  return out;
}

/** The storage table: one row per key prefix, with the modules that build its keys. */
export function storageTable(): string {
  const source = Deno.readTextFileSync(new URL(KV_KEYS, ROOT));
  const rows = [...source.matchAll(/^ \* \| ([a-z_]+)\s*\|([^|]*)\|([^|]*)\|([^|]*)\|$/gm)]
    .filter((m) => m[1] !== "prefix");
  // `name: (…) => ["prefix", …]`: which builder makes which prefix.
  const builders = [...source.matchAll(/^ {2}(\w+): \([^)]*\) =>\s*\[\s*"([a-z_]+)"/gm)];
  const files = libSources(new URL("lib/", ROOT), "lib/").filter((f) => f !== KV_KEYS);
  const texts = new Map(files.map((f) => [f, Deno.readTextFileSync(new URL(f, ROOT))]));
  const lines = [
    "| prefix | parts | value | TTL | read and written in |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const [, prefix, parts, value, ttl] of rows) {
    const names = builders.filter((b) => b[2] === prefix).map((b) => b[1]);
    const users = files.filter((f) => names.some((n) => texts.get(f)!.includes(`keys.${n}(`)));
    const cells = [`\`${prefix}\``, parts.trim(), value.trim(), ttl.trim()];
    lines.push(`| ${cells.join(" | ")} | ${users.map((u) => `\`${u}\``).join(", ") || "—"} |`);
  }
  return lines.join("\n");
}

/** `text` with the generated section replaced by `table`. */
export function withStorageTable(text: string, table: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md lacks ${BEGIN} … ${END}`);
  return `${text.slice(0, start + BEGIN.length)}\n\n${table}\n\n${text.slice(end)}`;
}

if (import.meta.main) {
  const file = new URL("docs/architecture.md", ROOT);
  const text = Deno.readTextFileSync(file);
  Deno.writeTextFileSync(file, withStorageTable(text, storageTable()));
  await new Deno.Command(Deno.execPath(), { args: ["fmt", file.pathname] }).output();
}
