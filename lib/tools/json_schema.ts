/**
 * The JSON Schema type shared by the tool registry and its compact schemas, in a module of its own
 * so that `compact_schema.ts` need not import the registry that imports it (no import cycle).
 */

/** A JSON Schema (2020-12) object. */
export type JsonSchema = Record<string, unknown>;
