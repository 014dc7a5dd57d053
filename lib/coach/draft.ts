/**
 * A finding before it is stored: the `CoachInsight` fields the coach decides, and a stable id —
 * a hash of the type, the metrics, what distinguishes it (lag, window) and the period it is
 * about — so the same finding found again keeps its id (a dismissal sticks, nothing duplicates).
 */

import type { CoachInsight, MemberRecord } from "../record/types.ts";
import type { Tier } from "./tier.ts";
import { callTool } from "./evidence.ts";

/** What a finding builder returns. */
export interface Draft {
  type: CoachInsight["type"];
  priority: CoachInsight["priority"];
  metrics: string[];
  /** Distinguishes findings of one type about the same metrics (e.g. `lag=1`). */
  detail: string;
  /** The period the finding is about (event dates, or the ISO week of a rolling analysis). */
  period: string;
  text: string;
  evidence: CoachInsight["evidence"];
  /** Ordering among drafts of one priority: larger first. */
  weight: number;
}

/** FNV-1a, 32 bits, from `seed`. */
function fnv1a(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** `ins_` + 16 hex digits of two FNV-1a hashes of type, metrics, detail and period. */
export function findingId(d: Pick<Draft, "type" | "metrics" | "detail" | "period">): string {
  const text = [d.type, d.metrics.join(","), d.detail, d.period].join("|");
  const hex = (x: number) => x.toString(16).padStart(8, "0");
  return `ins_${hex(fnv1a(text, 0x811c9dc5))}${hex(fnv1a(text, 0x050c5d1f))}`;
}

/** The stored insight of a draft. */
export function insightOf(d: Draft, createdAt: string, depth: Tier): CoachInsight {
  return {
    id: findingId(d),
    created_at: createdAt,
    type: d.type,
    priority: d.priority,
    metrics: d.metrics,
    text: d.text,
    evidence: d.evidence,
    depth,
  };
}

/**
 * A finding says what the tool it cites says about how its metrics were logged (issue #20 item 7:
 * a member who logs mood mostly on good days was told of a trend and a link without a word of it).
 * The cited call is replayed and its `logging.note`, when it has one, ends the finding's text and
 * joins its key numbers, so the evidence shows the caveat too. Tools without a `logging` field
 * leave the draft as it is.
 */
export function withLoggingCaveat(record: MemberRecord, d: Draft): Draft {
  const result = callTool(record, d.evidence.tool, d.evidence.arguments).result;
  const note = result.logging?.note;
  if (typeof note !== "string") return d;
  return {
    ...d,
    text: `${d.text} ${note}`,
    evidence: { ...d.evidence, key_numbers: { ...d.evidence.key_numbers, "logging.note": note } },
  };
}
