/**
 * The documentation corpus: `content/docs/*.md` with YAML front matter, indexed once at start-up
 * into an allowlist (request paths are never joined onto the filesystem). Generated sections
 * (`<!-- generated:NAME -->`) are filled from the code's registries, so tables cannot drift.
 */

import { Marked } from "marked";
import { parse as parseYaml } from "yaml";

/** One documentation page. */
export interface DocPage {
  slug: string;
  title: string;
  description: string;
  /** Navigation order. */
  order: number;
  /** Markdown body with generated sections filled, front matter removed. */
  markdown: string;
  /** Rendered HTML of the body. */
  html: string;
  /** h2/h3 headings with their anchor ids, for the page's table of contents. */
  headings: { depth: number; text: string; id: string }[];
}

/** Fills `<!-- generated:NAME -->` markers; given by the caller so this module stays generic. */
export type GeneratedSections = Record<string, () => string>;

const FRONT_MATTER = /^---\n([\s\S]*?)\n---\n?/;

/** Turns heading text into a URL fragment id (GitHub-style). */
export function slugifyHeading(text: string): string {
  return text.toLowerCase().replace(/<[^>]+>/g, "").replace(/[^\p{L}\p{N}\s_-]/gu, "").trim()
    .replace(/\s+/g, "-");
}

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** Renders Markdown to HTML with anchored headings; returns the headings too. */
export function renderMarkdown(markdown: string, baseUrl: string) {
  const headings: DocPage["headings"] = [];
  const seen = new Map<string, number>();
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth }) {
        const text = this.parser.parseInline(tokens);
        const plain = text.replace(/<[^>]+>/g, "");
        let id = slugifyHeading(plain);
        const n = seen.get(id) ?? 0;
        seen.set(id, n + 1);
        if (n > 0) id = `${id}-${n}`;
        if (depth >= 2 && depth <= 3) headings.push({ depth, text: plain, id });
        return `<h${depth} id="${id}"><a class="anchor" href="#${id}" aria-hidden="true" tabindex="-1">#</a>${text}</h${depth}>\n`;
      },
      code({ text, lang }) {
        const language = (lang ?? "").split(/\s/, 1)[0];
        const cls = language ? ` class="language-${escapeHtml(language)}"` : "";
        return `<pre tabindex="0"><code${cls}>${escapeHtml(text)}</code></pre>\n`;
      },
    },
  });
  const html =
    (marked.parse(markdown.replaceAll("{base_url}", baseUrl), { async: false }) as string)
      // A wide table scrolls inside itself on a phone (WCAG 1.4.10); keyboard users must be able
      // to reach and scroll it too (WCAG 2.1.1; axe `scrollable-region-focusable`), as `pre` can.
      .replaceAll("<table>", '<table tabindex="0">');
  return { html, headings };
}

/** Loads every page under `dir`, filling generated sections and `{base_url}` placeholders. */
export function loadDocs(
  dir: URL,
  baseUrl: string,
  generated: GeneratedSections,
): Map<string, DocPage> {
  const pages = new Map<string, DocPage>();
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".md")) continue;
    const slug = entry.name.slice(0, -3);
    const raw = Deno.readTextFileSync(new URL(entry.name, dir));
    const fm = FRONT_MATTER.exec(raw);
    const meta = (fm ? parseYaml(fm[1]) : {}) as Record<string, unknown>;
    let body = fm ? raw.slice(fm[0].length) : raw;
    body = body.replace(/<!-- generated:([a-z-]+) -->/g, (_m, name: string) => {
      const section = generated[name];
      if (!section) throw new Error(`content/docs/${entry.name}: no generator for "${name}"`);
      return section().trim();
    });
    body = body.replaceAll("{base_url}", baseUrl);
    const { html, headings } = renderMarkdown(body, baseUrl);
    pages.set(slug, {
      slug,
      title: String(meta.title ?? slug),
      description: String(meta.description ?? ""),
      order: Number(meta.order ?? 100),
      markdown: `# ${String(meta.title ?? slug)}\n\n${body.trimStart()}`,
      html,
      headings,
    });
  }
  return pages;
}
