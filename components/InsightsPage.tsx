/**
 * The Coach page (`/app/insights`, issue #11 §5): the member's stored coach findings as
 * `get_coach_insights` returns them, each in its own words with the evidence behind it (the tool
 * call that reproduces its numbers, and those numbers) and links to the History chart of each
 * column it is about. With no findings it says so plainly and says what would change that; it
 * never invents one. Props in, markup out (lib/webapp/insights.ts builds the view).
 */

import type { InsightCard, InsightsView } from "../lib/webapp/insights.ts";
import { INSIGHTS_LIMIT } from "../lib/webapp/insights.ts";
import { AppShell } from "./AppShell.tsx";
import { dayDate } from "./dates.ts";
import { Notice } from "./form.tsx";

/** Props of `InsightsPage`. */
export interface InsightsPageProps {
  view: InsightsView;
  member: { displayName: string; username: string };
  csrfToken: string;
  flash?: string | null;
}

function Evidence({ card }: { card: InsightCard }) {
  const { tool, arguments: args } = card.insight.evidence;
  return (
    <details class="evidence">
      <summary>The numbers behind this</summary>
      {card.numbers.length > 0
        ? (
          <dl class="key-numbers">
            {card.numbers.map((n) => (
              <div key={n.name}>
                <dt title={n.paths.join(", ")}>{n.name}</dt>
                <dd>{n.value}</dd>
              </div>
            ))}
          </dl>
        )
        : null}
      <p class="hint">
        Any agent connected to your record can check them with the tool call{" "}
        <code>{tool}({JSON.stringify(args)})</code>.
      </p>
    </details>
  );
}

function Finding({ card }: { card: InsightCard }) {
  return (
    <li class={`card insight priority-${card.insight.priority}`}>
      <p class="insight-meta">
        <span class="tag">{card.kind}</span>{" "}
        <span>
          {/^\d{4}-\d{2}-\d{2}$/.test(card.written) ? dayDate(card.written) : card.written}
        </span>
        {card.depth ? <span>· {card.depth} tier</span> : null}
      </p>
      <p class="insight-text">{card.insight.text}</p>
      {card.metrics.length > 0
        ? (
          <p class="insight-links">
            {card.metrics.map((m, i) => (
              <span key={m.key}>
                {i > 0 ? " · " : null}
                <a href={m.href}>See the {m.label} chart</a>
              </span>
            ))}
          </p>
        )
        : null}
      <Evidence card={card} />
    </li>
  );
}

function EmptyState({ view }: { view: InsightsView }) {
  if (!view.hasColumns) {
    return (
      <Notice>
        The coach has nothing to say yet: it reads what you log, and you have no columns.{" "}
        <a href="/app/columns">Add a column</a> to start.
      </Notice>
    );
  }
  return (
    <Notice>
      <p>The coach has nothing to say yet.</p>
      {view.daysNeeded > 0
        ? (
          <p>
            It needs {view.daysNeeded} more logged {view.daysNeeded === 1 ? "day" : "days"}{" "}
            before it can test how your columns move together: that takes at least {view.minDays}
            {" "}
            days with values (more when one day is much like the next), and you have logged{" "}
            {view.daysLogged} of the last {view.lookbackDays}. <a href="/app">Log today</a>.
          </p>
        )
        : (
          <p>
            You have logged {view.daysLogged} of the last {view.lookbackDays}{" "}
            days, which is enough for it to look. When it finds something worth saying, it appears
            here with the numbers behind it. Until then, your <a href="/app/history">History</a>
            {" "}
            shows every day.
          </p>
        )}
    </Notice>
  );
}

/** The Coach page. */
export function InsightsPage({ view, member, csrfToken, flash }: InsightsPageProps) {
  return (
    <AppShell title="Coach" member={member} active="insights" csrfToken={csrfToken} flash={flash}>
      <h1>Coach</h1>
      <p class="lead">
        What the coach noticed in your record, newest first. Each finding shows the numbers it rests
        on and the exact tool call that reproduces them.
      </p>
      {view.cards.length === 0 ? <EmptyState view={view} /> : (
        <>
          <ol class="insights">
            {view.cards.map((c) => <Finding key={c.insight.id} card={c} />)}
          </ol>
          {view.total > view.cards.length
            ? (
              <p class="hint">
                Showing the newest {INSIGHTS_LIMIT} of {view.total} findings from the past year.
              </p>
            )
            : null}
        </>
      )}
    </AppShell>
  );
}
