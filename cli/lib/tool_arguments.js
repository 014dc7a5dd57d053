// @ts-check
import { CliError, EXIT } from "./errors.js";
import { closestNames } from "./suggest.js";

/** @typedef {Record<string, any>} JsonSchema */

/**
 * The JSON types a property schema allows (`type` may be a list, or sit in `anyOf`/`oneOf`).
 * @param {JsonSchema} schema
 * @returns {string[]}
 */
function typesOf(schema) {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === "string") return [schema.type];
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) return variants.flatMap(typesOf);
  if (Array.isArray(schema.enum)) {
    return [
      ...new Set(schema.enum.map((/** @type {unknown} */ v) => typeof v)),
    ];
  }
  return [];
}

/**
 * Converts one command-line value to the type its schema names, or explains why it cannot.
 * @param {string} name argument name, for messages
 * @param {string} raw the text after `=`
 * @param {JsonSchema} schema
 * @returns {unknown}
 */
export function typedValue(name, raw, schema) {
  const types = typesOf(schema);
  if (types.includes("null") && raw === "null") return null;
  /** @type {string[]} */
  const problems = [];
  for (const type of types.length ? types : ["string"]) {
    const result = convert(raw, type, schema);
    if (result.ok) {
      checkBounds(name, result.value, schema);
      return result.value;
    }
    problems.push(result.why);
  }
  throw new CliError(
    `Bad argument ${name}=${raw}: ${problems.join("; or ")}.`,
    EXIT.USAGE,
  );
}

/**
 * @param {string} raw
 * @param {string} type
 * @param {JsonSchema} schema
 * @returns {{ ok: true, value: unknown } | { ok: false, why: string }}
 */
function convert(raw, type, schema) {
  switch (type) {
    case "integer":
      return /^[+-]?\d+$/.test(raw.trim())
        ? { ok: true, value: Number(raw) }
        : { ok: false, why: `must be an integer (like 30), got "${raw}"` };
    case "number": {
      const value = Number(raw);
      return raw.trim() !== "" && Number.isFinite(value)
        ? { ok: true, value }
        : { ok: false, why: `must be a number (like 7.5), got "${raw}"` };
    }
    case "boolean": {
      const lower = raw.toLowerCase();
      if (["true", "yes", "1"].includes(lower)) {
        return { ok: true, value: true };
      }
      if (["false", "no", "0"].includes(lower)) {
        return { ok: true, value: false };
      }
      return { ok: false, why: `must be true or false, got "${raw}"` };
    }
    case "array": {
      const items = raw === "" ? [] : raw.split(",").map((s) => s.trim());
      const itemSchema = schema.items ?? {};
      const values = [];
      for (const [i, item] of items.entries()) {
        const types = typesOf(itemSchema);
        const converted = (types.length ? types : ["string"]).map((t) =>
          convert(item, t, itemSchema)
        )
          .find((r) => r.ok);
        if (!converted || !converted.ok) {
          return {
            ok: false,
            why: `item ${i + 1} ("${item}") must be ${types.join(" or ") || "a string"}`,
          };
        }
        values.push(converted.value);
      }
      return { ok: true, value: values };
    }
    case "object":
      try {
        const value = JSON.parse(raw);
        if (value && typeof value === "object" && !Array.isArray(value)) {
          return { ok: true, value };
        }
      } catch { /* fall through to the explanation */ }
      return { ok: false, why: "must be a JSON object" };
    case "string":
      return { ok: true, value: raw };
    default:
      return { ok: false, why: `has a type the CLI cannot write (${type})` };
  }
}

/**
 * Checks `enum`, `minimum`/`maximum` and item counts, so a bad value is explained before any
 * request is sent; the server validates again.
 * @param {string} name
 * @param {unknown} value
 * @param {JsonSchema} schema
 */
function checkBounds(name, value, schema) {
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    throw new CliError(
      `Bad argument ${name}=${value}: must be one of ${schema.enum.join(", ")}.`,
      EXIT.USAGE,
    );
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) {
      throw new CliError(
        `Bad argument ${name}=${value}: must be at least ${schema.minimum}.`,
        EXIT.USAGE,
      );
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      throw new CliError(
        `Bad argument ${name}=${value}: must be at most ${schema.maximum}.`,
        EXIT.USAGE,
      );
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      throw new CliError(
        `Bad argument ${name}: needs at least ${schema.minItems} item(s).`,
        EXIT.USAGE,
      );
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      throw new CliError(
        `Bad argument ${name}: takes at most ${schema.maxItems} items.`,
        EXIT.USAGE,
      );
    }
  }
}

/**
 * Builds a tool's `arguments` object from `name=value` words, typed by its `inputSchema`.
 * @param {{ name: string, inputSchema: JsonSchema }} tool
 * @param {readonly string[]} words
 * @returns {Record<string, unknown>}
 */
export function toolArguments(tool, words) {
  const properties = /** @type {Record<string, JsonSchema>} */ (tool.inputSchema.properties ??
    {});
  const accepted = Object.keys(properties);
  const acceptedText = accepted.length ? accepted.join(", ") : "none (call it with no arguments)";
  /** @type {Record<string, unknown>} */
  const args = {};
  for (const word of words) {
    const at = word.indexOf("=");
    if (at <= 0) {
      throw new CliError(
        `Bad argument "${word}": write arguments as name=value. ${tool.name} accepts: ${acceptedText}.`,
        EXIT.USAGE,
      );
    }
    const name = word.slice(0, at);
    const schema = properties[name];
    if (!schema) {
      const near = closestNames(name, accepted);
      throw new CliError(
        `Bad argument ${name}: ${tool.name} has no argument "${name}".` +
          (near.length ? ` Did you mean ${near.join(", ")}?` : "") +
          ` It accepts: ${acceptedText}.`,
        EXIT.USAGE,
      );
    }
    if (name in args) {
      throw new CliError(`Bad argument ${name}: given twice.`, EXIT.USAGE);
    }
    args[name] = typedValue(name, word.slice(at + 1), schema);
  }
  const missing = /** @type {string[]} */ (tool.inputSchema.required ?? [])
    .filter((r) => !(r in args));
  if (missing.length) {
    const list = missing.map((m) => `${m} (${typesOf(properties[m] ?? {}).join(" or ") || "any"})`);
    throw new CliError(
      `Missing required argument${missing.length > 1 ? "s" : ""} for ${tool.name}: ${
        list.join(", ")
      }. ` +
        `Example: routine-tracker call ${tool.name} ${missing.map((m) => `${m}=…`).join(" ")}`,
      EXIT.USAGE,
    );
  }
  return args;
}
