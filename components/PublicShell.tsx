/**
 * The frame of every signed-out page (landing, sign in/up, membership, docs, the OAuth consent
 * screen): the brand, the developer links, and "Sign in" / "Create account" — or "Today" for a
 * signed-in visitor. The page passes its own single `h1` inside `children`.
 */

import type { ComponentChildren } from "preact";
import { Brand } from "./Brand.tsx";
import { Document } from "./Document.tsx";

/** Props of `PublicShell`. */
export interface PublicShellProps {
  title: string;
  description?: string;
  /** True when the visitor has a session: the header offers Today instead of Sign in. */
  signedIn?: boolean;
  /** Hide the account links (the OAuth screens have their own sign-in). */
  hideAccountLinks?: boolean;
  /** A side column (the docs navigation), placed before `main`. */
  aside?: ComponentChildren;
  children: ComponentChildren;
}

/** The signed-out page frame. */
export function PublicShell(p: PublicShellProps) {
  return (
    <Document title={p.title} description={p.description}>
      <header class="site">
        <div class="site-bar">
          <Brand />
          <nav aria-label="Site">
            <ul class="site-nav">
              <li>
                <a href="/docs/developers">Developers</a>
              </li>
              <li>
                <a href="/docs/mcp">MCP</a>
              </li>
              <li>
                <a href="/docs/sandbox">Sandbox</a>
              </li>
              {p.hideAccountLinks ? null : p.signedIn
                ? (
                  <li>
                    <a href="/app">Today</a>
                  </li>
                )
                : (
                  <>
                    <li>
                      <a href="/signin">Sign in</a>
                    </li>
                    <li>
                      <a href="/signup">Create account</a>
                    </li>
                  </>
                )}
            </ul>
          </nav>
        </div>
      </header>
      <div class="page">
        {p.aside}
        <main id="main">{p.children}</main>
      </div>
      <footer class="site">
        <a href="/help">Help</a> · <a href="/membership">Membership</a> · <a href="/api">API</a> ·
        {" "}
        <a href="/docs/mcp-tools">Tool reference</a> · <a href="/docs/sandbox">Sandbox</a>
      </footer>
    </Document>
  );
}
