/**
 * One worker of `deno task sim` (scripts/simulate.ts): measures the members it is sent and posts
 * back plain tallies. Every member is built from its own seed, so which worker measures it
 * changes nothing.
 */

/// <reference lib="deno.worker" />

import {
  COACH_SETS,
  coachTally,
  nullTally,
  recomputeTally,
  screenTally,
} from "../lib/coach/_simulation.ts";
import type { Job, JobResult } from "./simulate.ts";

function run(job: Job): JobResult {
  switch (job.kind) {
    case "coach":
      return { job, coach: coachTally(COACH_SETS[job.set], job.i, job.tier) };
    case "null":
      return { job, null: nullTally(job.i) };
    case "screen":
      return { job, screen: screenTally(job.i) };
    case "recompute":
      return { job, recompute: recomputeTally(job.i) };
  }
}

self.onmessage = (event: MessageEvent<Job[]>) => {
  self.postMessage(event.data.map(run));
};
