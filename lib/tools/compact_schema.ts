/**
 * The compact JSON Schemas `tools/list` publishes (issue #13: the list was 55 kB, ~14k tokens of
 * an agent's context, two thirds of it outputSchemas restating the same things eighteen times).
 * Each rewrite keeps a standard JSON Schema 2020-12 object (MCP 2025-11-25 server/tools: an
 * outputSchema is an object schema; no `$ref`/`$defs`, which not every client resolves) that
 * every result still validates against; what it stops repeating is said once in
 * `TOOL_CONVENTIONS`, which the server's `instructions` carry. OpenAPI keeps the full schemas.
 */

import type { JsonSchema } from "./registry.ts";

/** The envelope every tool result carries (schemas.ts `EnvelopeFields`), described once. */
export const ENVELOPE_FIELDS = ["timezone", "today", "range", "generated_at", "definition"];

/** What the compact schemas leave to the reader: sent once in the server's `instructions`. */
export const TOOL_CONVENTIONS =
  "Every tool result's structuredContent also has timezone (IANA), today and range " +
  "{start,end} (member-local YYYY-MM-DD, inclusive), generated_at (ISO 8601) and definition " +
  "(how the numbers are computed). An outputSchema object without `required` always has every " +
  "listed property (null when it does not apply). withheld {reason,needed,have} replaces numbers the data cannot support. Window arguments: " +
  "days ends today; start/end (inclusive) override it.";

const SAFE = Number.MAX_SAFE_INTEGER;

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `anyOf: [{type: T, …}, {type: "null"}]` → `{type: [T, "null"], …}` (same instances). */
function mergeNullable(schema: JsonSchema): JsonSchema {
  const anyOf = schema.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return schema;
  const [first, second] = anyOf;
  if (!isObject(first) || typeof first.type !== "string" || !isObject(second)) return schema;
  if (second.type !== "null" || Object.keys(second).length !== 1) return schema;
  const { anyOf: _dropped, ...rest } = schema;
  const merged: JsonSchema = { ...first, ...rest, type: [first.type, "null"] };
  if (Array.isArray(first.enum)) merged.enum = [...first.enum, null];
  return merged;
}

/** Keywords that restate a default or the obvious: dropped, every instance still validates. */
function redundant(key: string, value: unknown, output: boolean): boolean {
  // zod's z.int() emits the safe-integer bounds; JSON numbers beyond them are not produced.
  if (key === "minimum" && value === -SAFE) return true;
  if (key === "maximum" && value === SAFE) return true;
  if (key === "examples") return true;
  // Every JSON object key is a string.
  if (key === "propertyNames" && isObject(value) && value.type === "string") return true;
  // An output that is looser than the server's own promise refuses nothing the server sends.
  return output && key === "additionalProperties" && value === false;
}

/**
 * Rewrites one schema: drops redundant keywords, merges nullable unions and, for outputs, drops
 * `required` lists that name every property (TOOL_CONVENTIONS states the rule instead).
 */
export function compactSchema(schema: unknown, output: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((s) => compactSchema(s, output));
  if (!isObject(schema)) return schema;
  const source = mergeNullable(schema);
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (redundant(key, value, output)) continue;
    if (key === "properties" && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, s]) => [name, compactSchema(s, output)]),
      );
      continue;
    }
    const properties = isObject(source.properties) ? Object.keys(source.properties) : [];
    if (output && key === "required" && Array.isArray(value)) {
      if (value.length === properties.length) continue;
    }
    out[key] = compactSchema(value, output);
  }
  return out;
}

/** A tool's outputSchema as `tools/list` sends it: compact, the envelope left to the conventions. */
export function compactOutputSchema(schema: JsonSchema): JsonSchema {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const own = {
    ...schema,
    properties: Object.fromEntries(
      Object.entries(properties).filter(([name]) => !ENVELOPE_FIELDS.includes(name)),
    ),
    required: required.filter((name) => !ENVELOPE_FIELDS.includes(name)),
  };
  return compactSchema(own, true) as JsonSchema;
}
