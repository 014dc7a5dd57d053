import assert from "node:assert/strict";
import { localeOf, themeOf, weekStartsOn } from "./accounts.ts";

Deno.test("weekStartsOn() answers the member's day, and Monday for an account that never chose", () => {
  assert.equal(weekStartsOn({}), 1);
  assert.equal(weekStartsOn({ weekStartsOn: 0 }), 0);
  assert.equal(weekStartsOn({ weekStartsOn: 6 }), 6);
  assert.equal(weekStartsOn({ weekStartsOn: 7 }), 1, "a stored value out of 0–6 reads as Monday");
  assert.equal(weekStartsOn({ weekStartsOn: 2.5 }), 1);
});

Deno.test("themeOf() and localeOf() read an older account as system and en-GB", () => {
  assert.equal(themeOf({}), "system");
  assert.equal(themeOf({ theme: "dark" }), "dark");
  assert.equal(localeOf({}), "en-GB");
  assert.equal(localeOf({ locale: "en-US" }), "en-US");
  assert.equal(localeOf({ locale: "fr-FR" }), "en-GB");
});
