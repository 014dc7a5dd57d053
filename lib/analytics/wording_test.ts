import assert from "node:assert/strict";
import { testColumn } from "./_test_record.ts";
import { capitalPhraseOf, daysWord, phraseOf, plural, shownNumber, valueText } from "./_wording.ts";

Deno.test("plural() says 1 in the singular and every other count in the plural", () => {
  assert.equal(plural(1, "day"), "1 day");
  assert.equal(plural(0, "day"), "0 days");
  assert.equal(plural(3, "day"), "3 days");
  assert.equal(plural(1, "entry", "entries"), "1 entry");
  assert.equal(plural(2, "entry", "entries"), "2 entries");
  assert.equal(daysWord(1), "1 day");
  assert.equal(daysWord(21), "21 days");
});

Deno.test("phraseOf() names a column by its label, never its key", () => {
  assert.equal(phraseOf(testColumn("h2o", { label: "Glasses of water" })), "glasses of water");
  assert.equal(phraseOf(testColumn("hrv", { label: "HRV (ms)" })), "HRV");
  assert.equal(phraseOf(testColumn("rhr", { label: "Resting HR" })), "resting HR");
  assert.equal(phraseOf(testColumn("sleep_hours", { label: "" })), "sleep hours");
  assert.equal(capitalPhraseOf(testColumn("stp", { label: "steps" })), "Steps");
});

Deno.test("valueText() quotes a scale value with its scale, a time as a clock, else the unit", () => {
  const mood = testColumn("md", { label: "Mood", type: "scale", scale_min: 1, scale_max: 5 });
  assert.equal(valueText(mood, 4), "4 of 5");
  assert.equal(valueText(mood, 3.456), "3.46 of 5");
  const zero = testColumn("z", { type: "scale", scale_min: 0, scale_max: 10 });
  assert.equal(valueText(zero, 7), "7 on a 0–10 scale");
  assert.equal(valueText(testColumn("bed", { type: "time_of_day" }), 1410), "23:30");
  assert.equal(valueText(testColumn("sleep", { unit: "h" }), 7.25), "7.25 h");
  assert.equal(valueText(testColumn("stp"), 12345), "12,300");
  assert.equal(valueText(testColumn("stp"), null), "n/a");
  assert.equal(shownNumber(1234.5), "1,230");
});
