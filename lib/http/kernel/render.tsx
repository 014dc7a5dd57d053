/** Server-side rendering of HTML pages with Preact (DESIGN §2). */

import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import { PublicShell } from "../../../components/PublicShell.tsx";
import type { DocPage } from "../../documents/docs.ts";

/** Props of the page frame. */
export interface LayoutProps {
  title: string;
  description?: string;
  /** Docs navigation; omitted on pages that are not documentation. */
  nav?: { slug: string; title: string }[];
  current?: string;
  /** The OAuth screens have their own sign-in: no account links in the header. */
  hideAccountLinks?: boolean;
  children: ComponentChildren;
}

/** The signed-out frame (components/PublicShell.tsx) with the docs navigation when given. */
export function Layout(
  { title, description, nav, current, hideAccountLinks, children }: LayoutProps,
) {
  const aside = nav
    ? (
      <nav class="docs-nav" aria-label="Documentation">
        <ul>
          {nav.map((p) => (
            <li key={p.slug}>
              <a href={`/docs/${p.slug}`} aria-current={p.slug === current ? "page" : undefined}>
                {p.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    )
    : undefined;
  return (
    <PublicShell
      title={title}
      description={description}
      aside={aside}
      hideAccountLinks={hideAccountLinks}
    >
      {children}
    </PublicShell>
  );
}

/** Renders a component tree as a complete HTML document. */
export function renderPage(node: preact.JSX.Element): string {
  return "<!doctype html>" + renderToString(node);
}

/** Renders a documentation page with navigation and an "as Markdown" link. */
export function renderDocPage(page: DocPage, pages: DocPage[]): string {
  const nav = pages.map((p) => ({ slug: p.slug, title: p.title }));
  return renderPage(
    <Layout title={page.title} description={page.description} nav={nav} current={page.slug}>
      <article>
        <h1>{page.title}</h1>
        {page.description ? <p class="lead">{page.description}</p> : null}
        <p class="alt">
          <a href={`/docs/${page.slug}.md`} type="text/markdown">This page as Markdown</a>
        </p>
        {page.headings.length > 2
          ? (
            <nav class="toc" aria-label="On this page">
              <ul>
                {page.headings.filter((h) => h.depth === 2).map((h) => (
                  <li key={h.id}>
                    <a href={`#${h.id}`}>{h.text}</a>
                  </li>
                ))}
              </ul>
            </nav>
          )
          : null}
        <div dangerouslySetInnerHTML={{ __html: page.html }} />
      </article>
    </Layout>,
  );
}
