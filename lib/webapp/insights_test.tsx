import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { InsightsPage } from "../../components/InsightsPage.tsx";
import { withDateLocale } from "../../components/dates.ts";
import { syntheticMember } from "../sandbox/synthetic_member.ts";
import { getCoachInsights } from "../tools/get_coach_insights.ts";
import { testColumn, testRecord } from "../analytics/_test_record.ts";
import { insightsView } from "./insights.ts";
import { everyKindRecord } from "../coach/_test_every_kind.ts";
import { analyseRecord } from "../coach/analyse.ts";
import { insightOf } from "../coach/draft.ts";

const MEMBER = { displayName: "Sam", username: "sam" };

Deno.test("insightsView() shows exactly what get_coach_insights returns, with links to History", () => {
  // The sandbox member has stored findings; real members get them once the coach (#12) writes some.
  const record = syntheticMember();
  const view = insightsView(record);
  const tool = getCoachInsights.run(
    record,
    getCoachInsights.input.parse({ limit: 50, since: "1900-01-01" }),
  ) as { insights: { id: string; text: string; metrics: string[] }[] };
  assert.ok(tool.insights.length > 0);
  assert.deepEqual(view.cards.map((c) => c.insight.id), tool.insights.map((i) => i.id));

  const html = renderToString(<InsightsPage view={view} member={MEMBER} csrfToken="t" />);
  for (const insight of tool.insights) {
    // The page escapes text as HTML does: & first, then < and > (the coach writes "q < 0.001").
    const escaped = insight.text.replaceAll("&", "&amp;").replaceAll("<", "&lt;")
      .replaceAll(">", "&gt;");
    assert.ok(html.includes(escaped), insight.text);
    for (const metric of insight.metrics) {
      assert.ok(html.includes(`href="/app/history?column=${metric}"`), metric);
    }
  }
  assert.doesNotMatch(html, /nothing to say yet/);
  // Evidence: each finding names the tool call that reproduces its numbers.
  const evidenceCount = html.match(/<details class="evidence">/g)!.length;
  assert.equal(evidenceCount, tool.insights.length);
});

Deno.test("insightsView() counts the logged days still needed, without inventing findings", () => {
  const sleep = testColumn("sleep");
  const values = new Map([[0, 7], [1, 8], [2, "skip" as const]].map(([d, v]) => [Number(d), v]));
  const record = testRecord({ today: "1970-01-05", columns: [sleep], values: { sleep: values } });
  const view = insightsView(record);
  assert.deepEqual(view.cards, []);
  assert.equal(view.daysLogged, 2, "a skip is not a logged day");
  assert.equal(view.minDays, 30, "the coach's minimum of effective days");
  assert.equal(view.daysNeeded, view.minDays - 2);
  const html = renderToString(<InsightsPage view={view} member={MEMBER} csrfToken="t" />);
  assert.match(html, new RegExp(`It needs ${view.minDays - 2} more logged days`));
});

Deno.test("insightsView() names the numbers behind each finding in words, never by field path", () => {
  const base = everyKindRecord();
  const drafts = [...analyseRecord(base, "paid").drafts, ...analyseRecord(base, "free").drafts];
  const insights = drafts.map((d) => insightOf(d, base.now, "paid"));
  const record = { ...base, insights };
  const view = insightsView(record);
  const lines = view.cards.flatMap((c) => c.numbers.map((n) => `${n.name}: ${n.value}`));
  // a goal missed last week: 0 of 7 days with 4 cups of tea or more
  assert.ok(lines.includes("Days the goal was met: 0 of 7"), lines.join("\n"));
  assert.ok(lines.includes("Days done of the week's goal: 1 of 3"), lines.join("\n"));
  // a mood level keeps its scale (a mood of 5 ties earlier 5s, so it is no personal record)
  assert.ok(
    lines.some((l) => /^Average on days with workout: [\d.]+ of 5$/.test(l)),
    lines.join("\n"),
  );
  for (const line of lines) {
    assert.doesNotMatch(line, /_|\b(goals|anomalies|columns|best days) \d/, line);
  }
  const html = renderToString(<InsightsPage view={view} member={MEMBER} csrfToken="t" />);
  assert.doesNotMatch(html, /goals \d+ met days/);
  assert.match(html, /<dt title="goals\.\d+\.met_days, goals\.\d+\.eligible_days">Days the goal/);
});

Deno.test("InsightsPage(): writes a finding's date in the member's date style, as every page does", () => {
  const record = syntheticMember();
  const view = insightsView(record);
  const day = view.cards[0].written;
  assert.match(day, /^\d{4}-\d{2}-\d{2}$/, "the view keeps the member-local day, not words");
  const [year, month, date] = day.split("-").map(Number);
  const monthName = new Date(Date.UTC(year, month - 1, 1)).toLocaleString("en", {
    month: "long",
    timeZone: "UTC",
  });
  const meta = (locale: "en-GB" | "en-US") =>
    withDateLocale(
      locale,
      () => renderToString(<InsightsPage view={view} member={MEMBER} csrfToken="t" />),
    )
      .match(/<p class="insight-meta">([\s\S]*?)<\/p>/)![1];
  assert.match(meta("en-GB"), new RegExp(`>${date} ${monthName} ${year}<`));
  assert.match(meta("en-US"), new RegExp(`>${monthName} ${date}, ${year}<`));
});
