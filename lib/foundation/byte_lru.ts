/**
 * A cache bounded by bytes, least recently used dropped first (issue #22). Counting entries let a
 * few large ones (a member's three years of twelve columns) take hundreds of MB; the caller states
 * each entry's size when it stores it, estimated once (the cache never measures a value itself).
 */

/** Bytes in a mebibyte: the unit of the `*_CACHE_MB` settings. */
export const MIB = 1024 * 1024;

interface Sized<V> {
  value: V;
  bytes: number;
}

/** String keys to values, holding at most `maxBytes` of the sizes their callers stated. */
export class ByteLru<V> {
  // A Map iterates in insertion order; a read re-inserts, so the first key is the least recent.
  readonly #entries = new Map<string, Sized<V>>();
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** The stated bytes of every entry held (never above `maxBytes`). */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many entries are held. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value under `key`, which becomes the most recently used; undefined when absent. */
  get(key: string): V | undefined {
    const sized = this.#entries.get(key);
    if (!sized) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, sized);
    return sized.value;
  }

  /** Whether `key` is held, without touching its recency. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /**
   * Stores `value` of `bytes` under `key` (replacing any value there), dropping the least recently
   * used entries until it fits. A value larger than the whole bound is not stored (the caller
   * still uses it): keeping it would empty the cache for one entry. Returns whether it was stored.
   */
  set(key: string, value: V, bytes: number): boolean {
    this.delete(key);
    if (bytes > this.maxBytes) return false;
    for (const [oldest, sized] of this.#entries) {
      if (this.#bytes + bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= sized.bytes;
    }
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    return true;
  }

  /** Drops `key` if held. */
  delete(key: string): void {
    const sized = this.#entries.get(key);
    if (!sized) return;
    this.#entries.delete(key);
    this.#bytes -= sized.bytes;
  }
}

/**
 * V8's heap size of a string: a 16-byte header, then one byte per character when every character
 * is Latin-1 (a "one-byte" string), two otherwise, rounded up to the 8-byte allocation unit. The
 * test for a wider character reads the string once, when it is stored.
 */
export function stringBytes(s: string): number {
  // deno-lint-ignore no-control-regex
  const perChar = /[^\u0000-\u00ff]/.test(s) ? 2 : 1;
  return Math.ceil((16 + perChar * s.length) / 8) * 8;
}
