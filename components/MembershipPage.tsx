/**
 * `/membership`: free and paid in plain words (spec "What the service does" 7; DESIGN §15). The
 * price comes from the same pricing terms the MCP manifest publishes (lib/discovery.ts).
 */

import type { Tier, TierLimits } from "../lib/coach/tier.ts";
import { PublicShell } from "./PublicShell.tsx";

/** Props of `MembershipPage`. */
export interface MembershipPageProps {
  signedIn: boolean;
  /** The paid plan's price and period, from `buildPricing`. */
  paid: { price: number; period: string };
  currency: string;
  /** What the coach does at each depth: `TIER_LIMITS`, the table the coach itself runs on. */
  limits: Readonly<Record<Tier, TierLimits>>;
}

/** The coach's depth in plain words, one line per limit (the same facts as /docs/membership). */
function coachLines(limits: TierLimits): string[] {
  const lines = [
    `Reads the last ${limits.lookbackDays} days of your record`,
    limits.maxLag === 0
      ? "Looks for same-day relationships between your columns"
      : `Tests delayed effects of up to ${limits.maxLag} days (does today's walk show up in tomorrow's sleep?)`,
    `Up to ${limits.weeklyNew} new findings a week`,
  ];
  if (limits.periodsAndWeekdays) lines.push("Compares periods and finds your weekday patterns");
  if (limits.weeklyReview) lines.push("A weekly review of how your week went, every Monday");
  return lines;
}

/** `/membership`. */
export function MembershipPage({ signedIn, paid, currency, limits }: MembershipPageProps) {
  return (
    <PublicShell
      title="Membership"
      description="Tracking, the API and the MCP server are free. The paid tier deepens the coach."
      signedIn={signedIn}
    >
      <div class="content">
        <h1>Membership</h1>
        <p class="lead">
          Everything you need to keep your record is free, for good. Paying only makes the coach dig
          deeper into your own history.
        </p>
      </div>
      <div class="tiers">
        <section class="card" aria-labelledby="free-h">
          <h2 id="free-h">Free</h2>
          <p class="price">0 {currency}</p>
          <ul class="ticks">
            <li>Unlimited daily logging in your columns, with streaks, charts and history</li>
            <li>Export your whole record (CSV or JSON) and import from Loop or Daylio</li>
            <li>The REST API and read-only API tokens for your own scripts</li>
            <li>The MCP server with all 18 tools, for the AI agents you choose</li>
            <li>Connected apps through OAuth, each revocable at any time</li>
            {coachLines(limits.free).map((line) => (
              <li key={line}>The coach: {line.toLowerCase()}</li>
            ))}
          </ul>
        </section>
        <section class="card" aria-labelledby="paid-h">
          <h2 id="paid-h">Paid</h2>
          <p class="price">
            {paid.price} {currency} a {paid.period}
          </p>
          <p>Everything in Free, and a coach that goes further:</p>
          <ul class="ticks">
            {coachLines(limits.paid).map((line) => <li key={line}>{line}</li>)}
          </ul>
        </section>
      </div>
      <div class="content">
        <h2>What paying does not change</h2>
        <p>
          Every API endpoint, MCP tool, argument and answer is the same for every member, and so are
          the rate limits. No app or agent needs to know which tier you are on. The details are in
          {" "}
          <a href="/docs/membership">Membership and pricing</a>.
        </p>
        <div class="actions">
          {signedIn
            ? <a class="button primary" href="/app/settings">Go to Settings</a>
            : <a class="button primary" href="/signup">Create account</a>}
        </div>
      </div>
    </PublicShell>
  );
}
