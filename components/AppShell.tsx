/**
 * The frame of every signed-in page: the header with the product name, the member's display name
 * and a "Sign out" button (a POST form carrying the CSRF token: signing out changes state, so it
 * is never a link — OWASP CSRF cheat sheet), and the Today / History / Coach / Columns / Settings
 * navigation with `aria-current` on the active page. On a 390 px phone the brand, the name and
 * "Sign out" each stay on one line (issue #25; static/styles.css, the `walk` block). The page passes its own single `h1` in `children`.
 */

import type { ComponentChildren } from "preact";
import type { Theme } from "../lib/accounts/accounts.ts";
import { Brand } from "./Brand.tsx";
import { Document } from "./Document.tsx";
import { CsrfField, Notice } from "./form.tsx";

/** Which navigation entry is current. */
export type AppSection = "today" | "history" | "insights" | "settings" | "columns" | "none";

/** Props of `AppShell`. */
export interface AppShellProps {
  title: string;
  /** Who is signed in (a `Profile`: the names are shown, its theme colours the page). */
  member: { displayName: string; username: string; theme?: Theme };
  active: AppSection;
  csrfToken: string;
  /** A message carried over a redirect (Post/Redirect/Get), shown above the page. */
  flash?: string | null;
  children: ComponentChildren;
}

const NAV: { section: AppSection; href: string; label: string }[] = [
  { section: "today", href: "/app", label: "Today" },
  { section: "history", href: "/app/history", label: "History" },
  { section: "insights", href: "/app/insights", label: "Coach" },
  // In the navigation since issue #25: before, Columns was only "Edit columns" under Today's form.
  { section: "columns", href: "/app/columns", label: "Columns" },
  { section: "settings", href: "/app/settings", label: "Settings" },
];

/** The signed-in page frame. */
export function AppShell(p: AppShellProps) {
  return (
    <Document title={p.title} theme={p.member.theme}>
      {/* data-member: whose changes static/offline.js queues on this device (issue #24) */}
      <header class="site" data-member={p.member.username}>
        <div class="site-bar app-bar">
          <Brand href="/app" />
          <div class="member">
            <span class="member-name">{p.member.displayName}</span>
            <form method="post" action="/signout" class="inline-form">
              <CsrfField token={p.csrfToken} />
              <button type="submit" class="quiet">Sign out</button>
            </form>
          </div>
        </div>
        <nav class="app-nav" aria-label="App">
          <ul>
            {NAV.map((n) => (
              <li key={n.href}>
                <a
                  href={n.href}
                  aria-current={n.section === p.active ? "page" : undefined}
                >
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <div class="page">
        <main id="main">
          {p.flash ? <Notice kind="success">{p.flash}</Notice> : null}
          {p.children}
        </main>
      </div>
      {/* The member-facing help (issue #25): content/docs/help.md, served at /help. */}
      <footer class="site">
        <a href="/help">Help</a> · <a href="/membership">Membership</a>
      </footer>
      <script src="/static/offline.js" defer></script>
    </Document>
  );
}
