/** Generated documentation sections: tables that come from the code's registries (DESIGN §11). */

import { parse as parseYaml } from "yaml";
import { CLI_TARBALL_PATH, DISCOVERY_DOCUMENTS } from "./discovery.ts";
import { ERROR_TABLE } from "../foundation/errors.ts";
import { type DocPage, type GeneratedSections, loadDocs, slugifyHeading } from "./docs.ts";
import { INITIALIZE_REVISIONS, PER_REQUEST_REVISIONS } from "../mcp/protocol.ts";
import { RATE_LIMIT_POLICIES } from "../policy/rate_limit.ts";
import { DOCUMENTED_INPUT_SCHEMAS, TOOL_DESCRIPTORS } from "../tools/registry.ts";
import type { JsonSchema } from "../tools/json_schema.ts";

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

function describeProperty(name: string, schema: JsonSchema, required: boolean): string {
  const type = schema.type ?? (schema.enum ? "enum" : schema.anyOf ? "one of" : "any");
  const enumValues = Array.isArray(schema.enum)
    ? ` (${(schema.enum as unknown[]).map((v) => `\`${JSON.stringify(v)}\``).join(", ")})`
    : "";
  const range = [
    schema.minimum !== undefined ? `≥ ${schema.minimum}` : "",
    schema.maximum !== undefined ? `≤ ${schema.maximum}` : "",
  ].filter(Boolean).join(", ");
  const dflt = schema.default !== undefined ? `default \`${JSON.stringify(schema.default)}\`` : "";
  const notes = [required ? "required" : "", range, dflt].filter(Boolean).join("; ");
  return `| \`${name}\` | ${
    cell(String(Array.isArray(type) ? type.join(" or ") : type))
  }${enumValues} | ${cell(notes)} | ${cell(String(schema.description ?? ""))} |`;
}

/** A Markdown table: a header row, the separator, then the rows (already `| … |` lines). */
function table(headers: string[], rows: string[]): string {
  return [`| ${headers.join(" | ")} |`, `|${"---|".repeat(headers.length)}`, ...rows].join("\n");
}

/** One section per tool: description, arguments table, result fields. */
export function toolsSection(): string {
  return TOOL_DESCRIPTORS.map((tool) => {
    const input = DOCUMENTED_INPUT_SCHEMAS.get(tool.name)!;
    const props = (input.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((input.required ?? []) as string[]);
    const args = Object.keys(props).length === 0
      ? "No arguments: send `{}`."
      : table(["argument", "type", "rules", "meaning"], [
        ...Object.entries(props).map(([n, s]) => describeProperty(n, s, required.has(n))),
      ]);
    const outputFields = Object.keys(
      (tool.outputSchema.properties ?? {}) as Record<string, unknown>,
    );
    return [
      `### \`${tool.name}\` — ${tool.title}`,
      "",
      tool.description,
      "",
      args,
      "",
      `Result fields (\`structuredContent\`): ${outputFields.map((f) => `\`${f}\``).join(", ")}.`,
    ].join("\n");
  }).join("\n\n");
}

/** A one-line-per-tool index table. */
export function toolIndexSection(): string {
  return table(["tool", "what it answers"], [
    ...TOOL_DESCRIPTORS.map((t) =>
      `| [\`${t.name}\`](/docs/mcp-tools#${slugifyHeading(`${t.name} — ${t.title}`)}) | ${
        cell(t.description.split(". ")[0].replace(/\.$/, ""))
      }. |`
    ),
  ]);
}

/** The error-code table. */
export function errorsSection(): string {
  return table(["code", "HTTP status", "meaning"], [
    ...Object.entries(ERROR_TABLE).map(([code, e]) =>
      `| \`${code}\` | ${e.status} | ${cell(e.meaning)} |`
    ),
  ]);
}

/** The rate-limit policy table. */
export function rateLimitsSection(): string {
  return table(["policy", "quota", "window (s)", "keyed by", "governs"], [
    ...Object.values(RATE_LIMIT_POLICIES).map((p) =>
      `| \`${p.name}\` | ${p.q} | ${p.w} | ${p.keyedBy} | ${cell(p.governs)} |`
    ),
  ]);
}

/** The MCP revisions spoken. */
export function revisionsSection(): string {
  return table(["revision", "how it is spoken"], [
    ...PER_REQUEST_REVISIONS.map((r) =>
      `| \`${r}\` | no \`initialize\`; \`server/discover\` and \`_meta\` protocol version on every request |`
    ),
    ...INITIALIZE_REVISIONS.map((r) =>
      `| \`${r}\` | \`initialize\` handshake, then \`MCP-Protocol-Version\` header |`
    ),
  ]);
}

/** The discovery documents: path, content type, what each holds (developer overview). */
export function discoverySection(): string {
  return table(["document", "content type", "content"], [
    ...DISCOVERY_DOCUMENTS.map((d) =>
      `| [\`${d.path}\`]({base_url}${d.path}) | \`${cell(d.contentType)}\` | ${cell(d.notes)} |`
    ),
    `| [\`${CLI_TARBALL_PATH}\`]({base_url}${CLI_TARBALL_PATH}) | \`application/gzip\` | the [command-line client](/docs/cli) as an npm tarball |`,
  ]);
}

/**
 * A link to every page, read from the front matter of `content/docs/` (the pages themselves are
 * still being loaded when this runs, so it cannot ask the loaded corpus).
 */
export function docIndexSection(): string {
  const pages: { slug: string; title: string; description: string; order: number }[] = [];
  for (const entry of Deno.readDirSync(CONTENT_DIR)) {
    if (!entry.isFile || !entry.name.endsWith(".md")) continue;
    const raw = Deno.readTextFileSync(new URL(entry.name, CONTENT_DIR));
    const fm = /^---\n([\s\S]*?)\n---/.exec(raw);
    const meta = (fm ? parseYaml(fm[1]) : {}) as Record<string, unknown>;
    const slug = entry.name.slice(0, -3);
    pages.push({
      slug,
      title: String(meta.title ?? slug),
      description: String(meta.description ?? ""),
      order: Number(meta.order ?? 100),
    });
  }
  pages.sort((a, b) => a.order - b.order || a.slug.localeCompare(b.slug));
  return pages.map((p) => `- [${p.title}](/docs/${p.slug}): ${p.description}`).join("\n");
}

/** Every generated section by marker name. */
export const GENERATED_SECTIONS: GeneratedSections = {
  tools: toolsSection,
  "tool-index": toolIndexSection,
  errors: errorsSection,
  "rate-limits": rateLimitsSection,
  revisions: revisionsSection,
  discovery: discoverySection,
  "doc-index": docIndexSection,
};

const CONTENT_DIR = new URL("../../content/docs/", import.meta.url);
const cache = new Map<string, Map<string, DocPage>>();

/** The docs for a base URL, loaded once per process. */
export function docsFor(baseUrl: string): Map<string, DocPage> {
  let docs = cache.get(baseUrl);
  if (!docs) {
    docs = loadDocs(CONTENT_DIR, baseUrl, GENERATED_SECTIONS);
    cache.set(baseUrl, docs);
  }
  return docs;
}
