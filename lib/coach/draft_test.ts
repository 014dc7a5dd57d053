import assert from "node:assert/strict";
import { realLogMember } from "../analytics/_real_log_members.ts";
import { analyseRecord } from "./analyse.ts";
import { callTool, valueAt } from "./evidence.ts";

Deno.test("analyseRecord() ends a finding on a metric logged mostly on good days with the tool's logging note", () => {
  const { record } = realLogMember({
    seed: 2,
    days: 365,
    link: { r: 0.6, lag: 0 },
    loggedOnGoodDays: 0.3,
  });
  const found = analyseRecord(record, "paid").drafts.find((d) => d.type === "correlation");
  assert.ok(found, "the planted link is found");
  const note = found.evidence.key_numbers["logging.note"] as string;
  assert.match(note, /^Sleep quality was logged on \d+ of \d+ days \(\d+ %\)/);
  assert.ok(found.text.endsWith(note));
  // the note replays through the call the finding cites, like every key number
  const replay = callTool(record, found.evidence.tool, found.evidence.arguments).result;
  assert.equal(valueAt(replay, "logging.note"), note);
  const { record: even } = realLogMember({ seed: 2, days: 365, link: { r: 0.6, lag: 0 } });
  const plain = analyseRecord(even, "paid").drafts.find((d) => d.type === "correlation");
  assert.ok(plain && !("logging.note" in plain.evidence.key_numbers));
});
