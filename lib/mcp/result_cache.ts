/**
 * Serialised `tools/call` results of immutable record states (the sandbox, or a member's record
 * at one version), keyed by scope + tool + raw arguments. One per app, injected with the other
 * dependencies, so two apps in one process (tests) never share entries. Bounded by bytes
 * (`RESULT_CACHE_MB`, issue #22), least recently used dropped first.
 */

import { ByteLru, MIB, stringBytes } from "../foundation/byte_lru.ts";
import { DEFAULT_RESULT_CACHE_MB } from "../foundation/config.ts";

/** A Map slot (key, value, chain and spare capacity) and the `{ value, bytes }` pair around it. */
const ENTRY_BYTES = 64;

/** A byte-bounded, least-recently-used cache of serialised results. */
export class ResultCache {
  readonly #entries: ByteLru<string>;

  constructor(maxBytes = DEFAULT_RESULT_CACHE_MB * MIB) {
    this.#entries = new ByteLru(maxBytes);
  }

  /** Estimated bytes and count of the results held (tests and measurements). */
  get held(): { bytes: number; results: number; maxBytes: number } {
    const lru = this.#entries;
    return { bytes: lru.bytes, results: lru.size, maxBytes: lru.maxBytes };
  }

  /** The cached result JSON for `key`, if any (it becomes the most recently used). */
  get(key: string): string | undefined {
    return this.#entries.get(key);
  }

  /**
   * Remembers `json` under `key`, dropping the least recently used results until it fits; one
   * larger than the whole bound is not kept. Both strings are held, so both are counted, exactly
   * as V8 stores them (lib/foundation/byte_lru.ts `stringBytes`).
   */
  set(key: string, json: string): void {
    this.#entries.set(key, json, ENTRY_BYTES + stringBytes(key) + stringBytes(json));
  }
}
