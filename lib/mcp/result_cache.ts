/**
 * Serialised `tools/call` results of immutable record states (the sandbox, or a member's record
 * at one version), keyed by scope + tool + raw arguments. One per app, injected with the other
 * dependencies, so two apps in one process (tests) never share entries.
 */

/** Entries kept before the oldest is dropped. */
const DEFAULT_LIMIT = 2000;

/** A bounded insertion-ordered cache of serialised results. */
export class ResultCache {
  readonly #entries = new Map<string, string>();

  constructor(readonly limit = DEFAULT_LIMIT) {}

  /** The cached result JSON for `key`, if any. */
  get(key: string): string | undefined {
    return this.#entries.get(key);
  }

  /** Remembers `json` under `key`, dropping the oldest entry when full. */
  set(key: string, json: string): void {
    if (this.#entries.size >= this.limit) {
      // Map iterates in insertion order: the first key is the oldest.
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, json);
  }
}
