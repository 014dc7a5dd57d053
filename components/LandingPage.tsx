/**
 * The landing page (`/`): what Routine Tracker does for a member, the way in ("Create account",
 * "Sign in", or "Today" when signed in), and the developer and agent entrances (API, MCP, sandbox).
 */

import { Notice } from "./form.tsx";
import { PublicShell } from "./PublicShell.tsx";

/** Props of `LandingPage`. */
export interface LandingPageProps {
  baseUrl: string;
  signedIn: boolean;
  /** The message left by the redirect that led here ("Your account … deleted."). */
  flash?: string | null;
}

const FEATURES = [
  {
    title: "Log your day in a minute",
    text:
      "Sleep, steps, mood, workouts, medication, anything you can count or tick. One screen, one Save, from your phone's home screen.",
  },
  {
    title: "See your streaks and trends",
    text:
      "Every column has its streak, a chart over a month, a quarter or a year, and a calendar of done, missed and skipped days.",
  },
  {
    title: "Find what goes with what",
    text:
      "The coach looks for patterns in your own record — how your sleep moves with your steps, which weekday slips — and says it in plain words.",
  },
  {
    title: "Your record, your rules",
    text:
      "Agents and apps read it only when you let them, read-only, and you can revoke them any time. Export everything or delete your account from Settings.",
  },
];

/** A picture of the Today screen (decorative: made-up values, hidden from assistive tech). */
function Preview() {
  const rows = [
    { cls: "col-0", label: "Sleep", value: "7.5 h", note: "Streak: 12 days" },
    { cls: "col-2", label: "Mood", value: "● ● ● ● ○", note: "Best week since May" },
    { cls: "col-7", label: "Workout", value: "✓ Done", note: "3 of 3 this week" },
  ];
  return (
    <div class="preview" aria-hidden="true">
      <div class="preview-title">Today</div>
      {rows.map((r) => (
        <div class={`preview-row ${r.cls}`} key={r.label}>
          <span class="preview-label">{r.label}</span>
          <span class="preview-value">{r.value}</span>
          <span class="preview-note">{r.note}</span>
        </div>
      ))}
    </div>
  );
}

/** `/`. */
export function LandingPage({ baseUrl, signedIn, flash }: LandingPageProps) {
  return (
    <PublicShell
      title="Your routine, read by the tools you choose"
      description="Log your daily routine in a minute, see streaks and trends, and let the AI agents and apps you choose read it, read-only."
      signedIn={signedIn}
    >
      {flash ? <Notice kind="success">{flash}</Notice> : null}
      <div class="hero-wrap">
        <section class="hero">
          <h1>Routine Tracker</h1>
          <p class="lead">
            Log your daily routine (sleep, steps, mood, workouts, medication), watch your streaks
            grow, and let the AI agents and apps you choose read it, read-only.
          </p>
          <div class="actions">
            {signedIn ? <a class="button primary" href="/app">Go to Today</a> : (
              <>
                <a class="button primary" href="/signup">Create account</a>
                <a class="button" href="/signin">Sign in</a>
              </>
            )}
          </div>
          <p class="muted small">
            Free to track, with the API and MCP included. <a href="/membership">Membership</a>{" "}
            adds a deeper coach.
          </p>
        </section>
        <Preview />
      </div>
      <div class="features">
        {FEATURES.map((f) => (
          <section class="card" key={f.title}>
            <h2>{f.title}</h2>
            <p>{f.text}</p>
          </section>
        ))}
      </div>
      <section class="card">
        <h2>For developers and AI agents</h2>
        <ul>
          <li>
            <a href="/docs/mcp">MCP server</a>: 18 read-only tools at <code>{baseUrl}/api/mcp</code>
          </li>
          <li>
            <a href="/docs/sandbox">Sandbox</a>: try every tool on a synthetic member, no account
            needed, at <code>{baseUrl}/api/sandbox</code>
          </li>
          <li>
            <a href="/docs/mcp-tools">Tool reference</a>
          </li>
          <li>
            <a href="/api">REST API</a> and the <a href="/openapi.json">OpenAPI description</a>
          </li>
          <li>
            <a href="/docs/developers">Developer guide</a> and{" "}
            <a href="/docs/authentication">authentication</a> (API tokens, OAuth 2.1)
          </li>
        </ul>
      </section>
    </PublicShell>
  );
}
