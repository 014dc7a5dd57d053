/**
 * `deno task bench` (issue #13 item 6), in one run: the single-process section (bare ceiling,
 * bare + required work, our sandbox and authenticated get_streak, the official MCP SDK server;
 * scripts/bench/single_process.ts), then the scale sections (many clients, several processes,
 * revocation across them, commits per write; scripts/bench/scale.ts), each once the previous
 * one's servers have stopped.
 *
 * Options (environment): BENCH_SECTIONS (`single,coach,scale`, the default, or any of them); the
 * sections' own options are in their files. Needs `wrk` (Debian: `apt-get install wrk`). Not part
 * of CI: timings on a shared 2-core machine belong in a closing note, not in an assertion.
 */

import { singleProcessSection } from "./bench/single_process.ts";
import { scaleSections } from "./bench/scale.ts";
import { benchCoach } from "./bench_coach.ts";

const SECTIONS = (Deno.env.get("BENCH_SECTIONS") ?? "single,coach,scale").split(",");

if (import.meta.main) {
  try {
    await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" }).output();
  } catch {
    console.error("wrk is not installed: apt-get install wrk");
    Deno.exit(1);
  }
  if (SECTIONS.includes("single")) console.log((await singleProcessSection()).join("\n"));
  // A coach run (issue #12) and its share of a write; in-process, no server.
  if (SECTIONS.includes("coach")) { for (const line of await benchCoach()) console.log(line); }
  if (SECTIONS.includes("scale")) console.log((await scaleSections()).join("\n"));
}
