/** The friendly 404 inside the app frame, for a signed-in member on an unknown `/app/…` page. */

import { AppShell } from "./AppShell.tsx";

/** Props of `AppNotFound`. */
export interface AppNotFoundProps {
  member: { displayName: string; username: string };
  csrfToken: string;
  path: string;
}

/** "No such page", with the ways on. */
export function AppNotFound(p: AppNotFoundProps) {
  return (
    <AppShell title="Page not found" member={p.member} active="none" csrfToken={p.csrfToken}>
      <div class="card narrow">
        <h1>Page not found</h1>
        <p>
          There is no page at <code>{p.path}</code>.
        </p>
        <p>
          <a href="/app">Log today</a>, <a href="/app/history">look back</a> or{" "}
          <a href="/app/columns">edit your columns</a>.
        </p>
      </div>
    </AppShell>
  );
}
