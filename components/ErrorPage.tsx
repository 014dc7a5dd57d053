/** The page shown when a page request fails (refused form, rate limit, missing page). */

import { PublicShell } from "./PublicShell.tsx";

const TITLES: Record<number, string> = {
  400: "That did not work",
  401: "Please sign in",
  403: "This request was refused",
  404: "Page not found",
  405: "Not a page to open",
  413: "That is too large",
  429: "Too many attempts",
  507: "Nothing could be saved",
};

/** An error page in the signed-out frame, with a way back. */
export function ErrorPage({ status, message }: { status: number; message: string }) {
  const title = TITLES[status] ?? "Something went wrong";
  return (
    <PublicShell title={title}>
      <div class="card narrow">
        <h1>{title}</h1>
        <p role="alert">{message}</p>
        <p>
          <a href="/app">Go to Today</a> or <a href="/">the home page</a>.
        </p>
      </div>
    </PublicShell>
  );
}
