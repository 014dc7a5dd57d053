/**
 * The JSON Schemas `tools/list` publishes (issue #13: the list was 55 kB, about 14k tokens of an
 * agent's context, most of it restating the same things eighteen times; the target is 24 kB).
 * Two steps, each keeping standard JSON Schema 2020-12 (MCP 2025-11-25 server/tools; no
 * `$ref`/`$defs`, which not every client resolves) that every result still validates against:
 *
 * 1. `compactSchema` rewrites without losing anything: no keyword that restates a default, and
 *    nullable unions as `type: [T, "null"]`. The docs pages show these forms too.
 * 2. What every tool shares is said once, in `TOOL_CONVENTIONS`, which the server's
 *    `instructions` carry: the result envelope, the shared arguments' meanings, and how to read
 *    an outline. An outputSchema is an outline: every top-level field with its type, nullability,
 *    vocabulary (`enum`) and description; nested objects and arrays are typed but not expanded.
 *    The agent reads nested fields in the result itself (self-describing JSON, and the same text
 *    in `content`), and the complete schema of every result — nested fields and descriptions —
 *    is `Tool_<name>_Output` in `/openapi.json`, built from the same zod schemas.
 */

import type { JsonSchema } from "./json_schema.ts";
import { MAX_SPAN_DAYS } from "../record/columns.ts";
import {
  KEY_MAX_LENGTH,
  SHARED_ARGUMENTS,
  SHARED_RESULT_FIELDS,
  SHARED_VOCABULARIES,
} from "./schemas.ts";

/** The envelope every tool result carries (schemas.ts `EnvelopeFields`), described once. */
export const ENVELOPE_FIELDS = ["timezone", "today", "range", "generated_at", "definition"];

/**
 * Result fields sent only in some answers; every other listed field is always present. The
 * conventions name them, and tests/http/tools_list_size_test.ts keeps this list true.
 */
export const OCCASIONAL_FIELDS = {
  withheld: "absent, or null, when no number is withheld",
  series: "only when include_series asks for it",
  screen: "only when the screen argument asks for it",
} as const;

/** What the compact schemas leave to the reader: sent once in the server's `instructions`. */
export const TOOL_CONVENTIONS = [
  "Every tool result's structuredContent also has timezone (IANA), today and range {start,end} " +
  "(member-local YYYY-MM-DD, inclusive), generated_at (ISO 8601) and definition (how the numbers " +
  "are computed).",
  "An outputSchema outlines the result: each top-level field with its type; nested objects and " +
  "arrays are typed, not expanded (the result shows them; /openapi.json has every result's " +
  "complete schema as Tool_<name>_Output). Every listed field is present, null when it does not " +
  `apply, except ${
    Object.entries(OCCASIONAL_FIELDS).map(([name, when]) => `${name} (${when})`).join(" and ")
  }. withheld {reason,needed,have} replaces numbers the data cannot support. p_value: ` +
  SHARED_RESULT_FIELDS.p_value + " logging: " + SHARED_RESULT_FIELDS.logging +
  ` Values of ${
    Object.entries(SHARED_VOCABULARIES).map(([fields, values]) => `${fields}: ${values.join("|")}`)
      .join("; ")
  }.`,
  "A tool refuses arguments its inputSchema does not list. Shared arguments: metric, and every " +
  "other column-key argument, is a key from list_columns; " +
  `string arguments (keys, cursors) are 1–${KEY_MAX_LENGTH} characters; days (1–${MAX_SPAN_DAYS}) ` +
  "counts days ending today; start and end override it; date arguments are member-local " +
  "YYYY-MM-DD and every range they give is inclusive; detrend: " +
  SHARED_ARGUMENTS.detrend,
].join(" ");

const SAFE = Number.MAX_SAFE_INTEGER;

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  return (isObject(schema.properties) ? schema.properties : {}) as Record<string, JsonSchema>;
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
 * Rewrites one schema without losing information: drops redundant keywords, merges nullable
 * unions and, for outputs, drops `required` lists that name every property.
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
    const properties = Object.keys(propertiesOf(source));
    if (output && key === "required" && Array.isArray(value)) {
      if (value.length === properties.length) continue;
    }
    out[key] = compactSchema(value, output);
  }
  return out;
}

/** What a shared argument keeps in `tools/list`; the conventions give its meaning, format, bounds. */
const SHARED_ARGUMENT_KEYWORDS = ["type", "default", "enum"];

/**
 * One argument as `tools/list` sends it. A shared argument with its shared meaning keeps only its
 * type, default and vocabulary; any other argument loses only what the conventions state: a
 * shared meaning (the items of a list of column keys) and the key-length bound.
 */
function listedArgument(name: string, schema: JsonSchema): JsonSchema {
  const sharedMeaning = (Object.values(SHARED_ARGUMENTS) as unknown[]).includes(schema.description);
  const keep = sharedMeaning && name in SHARED_ARGUMENTS
    ? (key: string) => SHARED_ARGUMENT_KEYWORDS.includes(key)
    : (key: string) =>
      !(key === "description" && sharedMeaning) &&
      !(isKeyLength(schema) && (key === "minLength" || key === "maxLength"));
  const listed = Object.fromEntries(Object.entries(schema).filter(([key]) => keep(key)));
  if (isObject(listed.items)) listed.items = listedArgument(`${name}[]`, listed.items);
  return listed;
}

/** A string argument bounded like a column key: the conventions state that bound once. */
function isKeyLength(schema: JsonSchema): boolean {
  return schema.minLength === 1 && schema.maxLength === KEY_MAX_LENGTH;
}

/**
 * A tool's inputSchema as `tools/list` sends it, from its documented form (`compactSchema` of the
 * full schema, which the docs show). Every tool refuses arguments it does not list, which the
 * conventions say once; a tool without arguments keeps `additionalProperties: false`, the form
 * MCP 2025-11-25 server/tools gives for it.
 */
export function listedInputSchema(documented: JsonSchema): JsonSchema {
  const { additionalProperties, ...rest } = documented;
  const properties = Object.entries(propertiesOf(rest))
    .map(([name, s]) => [name, listedArgument(name, s)]);
  const listed: JsonSchema = { ...rest, properties: Object.fromEntries(properties) };
  if (properties.length === 0 && additionalProperties !== undefined) {
    listed.additionalProperties = additionalProperties;
  }
  return listed;
}

/** Keywords an outline keeps of a top-level field: its kind of value and its meaning. */
const OUTLINE_KEYWORDS = ["type", "const", "enum", "description"];

/**
 * One top-level result field, outlined. Not repeated: an enum the same-named argument or a shared
 * vocabulary already lists, a shared description, and the type of a field whose values are listed.
 */
function outlineField(
  { name, field, argument }: { name: string; field: JsonSchema; argument?: JsonSchema },
): JsonSchema {
  const out: JsonSchema = {};
  for (const key of OUTLINE_KEYWORDS) if (field[key] !== undefined) out[key] = field[key];
  if (field.type === undefined && Array.isArray(field.anyOf)) out.anyOf = field.anyOf;
  const echoed = Array.isArray(out.enum) && Array.isArray(argument?.enum) &&
    sameValues((out.enum as unknown[]).filter((v) => v !== null), argument.enum as unknown[]);
  if (echoed || isSharedVocabulary(out.enum)) delete out.enum;
  if (out.description === (SHARED_RESULT_FIELDS as Record<string, string>)[name]) {
    delete out.description;
  }
  // A listed set of values (null among them when the field is nullable) already says the type.
  if (out.enum !== undefined || out.const !== undefined) delete out.type;
  return out;
}

function isSharedVocabulary(values: unknown): boolean {
  if (!Array.isArray(values)) return false;
  const named = values.filter((v) => v !== null);
  return Object.values(SHARED_VOCABULARIES).some((vocabulary) =>
    sameValues(named, [...vocabulary])
  );
}

function sameValues(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((v) => b.includes(v));
}

/** A tool's outputSchema as `tools/list` sends it: the outline, the envelope left out. */
export function outlineOutputSchema(full: JsonSchema, input: JsonSchema): JsonSchema {
  const compact = compactSchema(full, true) as JsonSchema;
  const args = propertiesOf(input);
  const fields = Object.entries(propertiesOf(compact))
    .filter(([name]) => !ENVELOPE_FIELDS.includes(name))
    .map(([name, field]) => [name, outlineField({ name, field, argument: args[name] })]);
  return { type: "object", properties: Object.fromEntries(fields) };
}
