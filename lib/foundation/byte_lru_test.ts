import assert from "node:assert/strict";
import { ByteLru, stringBytes } from "./byte_lru.ts";

Deno.test("ByteLru: drops the least recently used until a new entry fits; a read makes it recent", () => {
  const lru = new ByteLru<string>(100);
  lru.set("a", "A", 40);
  lru.set("b", "B", 40);
  assert.equal(lru.get("a"), "A");
  lru.set("c", "C", 40);
  assert.deepEqual(["a", "b", "c"].map((k) => lru.has(k)), [true, false, true]);
  assert.equal(lru.bytes, 80);
  lru.set("a", "A2", 90);
  assert.deepEqual(["a", "c"].map((k) => lru.has(k)), [true, false], "a replaced, c dropped");
  assert.equal(lru.bytes, 90);
});

Deno.test("ByteLru: an entry larger than the bound is not stored and evicts nothing", () => {
  const lru = new ByteLru<string>(100);
  lru.set("a", "A", 60);
  assert.equal(lru.set("big", "B", 101), false);
  assert.equal(lru.has("big"), false);
  assert.equal(lru.get("a"), "A");
  assert.equal(new ByteLru<string>(0).set("x", "X", 1), false);
});

Deno.test("stringBytes(): one byte a character up to Latin-1, two beyond, plus V8's header", () => {
  assert.equal(stringBytes(""), 16);
  assert.equal(stringBytes("x".repeat(100)), 120);
  assert.equal(stringBytes("é".repeat(100)), 120);
  assert.equal(stringBytes("’".repeat(100)), 216);
});
