/**
 * Screening every metric of a noise member (issue #20 target: a false pair for ≤ 10 % of members,
 * whether the agent makes one whole-record call or calls find_correlations once per metric with
 * the defaults). Members are built like real logs (lib/analytics/_real_log_members.ts), nothing
 * planted: "pure" (white, complete, no weekday rhythm or trend) and "realistic" (AR(1) 0.5, 20 %
 * missing days, 3 % missing values, own weekday profiles and trends). Before #20 each call was its
 * own Benjamini–Hochberg family: per-metric screening of these members found a false pair for
 * 120/200 pure and 78/200 realistic members; one family per screen: 2/200 and 2/200.
 */

import assert from "node:assert/strict";
import { realLogMember, type RealLogOptions } from "../analytics/_real_log_members.ts";
import type { MemberRecord } from "../record/types.ts";
import { findCorrelations } from "./find_correlations.ts";

const MEMBERS = 200;
const SETS: Record<string, Partial<RealLogOptions>> = {
  pure: { phi: 0, missingDays: 0, missingValues: 0, weekday: false, trend: false },
  realistic: {},
};

/** A reported pair, named the same from either side (same-day pairs are unordered). */
function pairName(x: { other_metric: string; metric: string; lag_days: number }): string {
  return x.lag_days === 0
    ? `${[x.other_metric, x.metric].sort().join("|")}|0`
    : `${x.other_metric}|${x.metric}|${x.lag_days}`;
}

function pairsFound(record: MemberRecord, calls: Record<string, unknown>[]): Set<string> {
  const found = new Set<string>();
  for (const args of calls) {
    const r = findCorrelations.run(record, findCorrelations.input.parse({ top: 20, ...args }));
    for (const x of r.results) found.add(pairName(x));
  }
  return found;
}

for (const [set, options] of Object.entries(SETS)) {
  Deno.test(`find_correlations() screening every metric of ${MEMBERS} ${set} noise members finds a false pair for at most 10 % of them`, () => {
    let whole = 0, perMetric = 0;
    for (let s = 0; s < MEMBERS; s++) {
      const { record } = realLogMember({ seed: 2000 + s, days: 180, ...options });
      const once = pairsFound(record, [{}]);
      const oneByOne = pairsFound(record, record.columns.map((c) => ({ metric: c.key })));
      // the per-metric calls count the same family, so together they find what one call finds
      assert.deepEqual([...oneByOne].sort(), [...once].sort());
      if (once.size > 0) whole++;
      if (oneByOne.size > 0) perMetric++;
    }
    console.log(`${set}: whole-record ${whole}/${MEMBERS}, per metric ${perMetric}/${MEMBERS}`);
    assert.ok(whole <= MEMBERS / 10, `whole-record call: ${whole}/${MEMBERS}`);
    assert.ok(perMetric <= MEMBERS / 10, `one call per metric: ${perMetric}/${MEMBERS}`);
  });
}
