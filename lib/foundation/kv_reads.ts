/**
 * Strongly consistent reads, coalesced. Every request checks its credential (and its member's
 * record version) with a strong read (docs/architecture.md, "Consistency across instances"); under
 * load many requests ask for the same few keys at once. A `StrongReader` gathers the keys asked for
 * while earlier reads are in flight and reads them together with `getMany`, each distinct key once.
 *
 * Consistency is kept because a request only ever joins a read that has not started yet: every
 * answer comes from a read that began after the request asked, so it sees every commit that
 * completed before the request began — a revocation or a write acknowledged anywhere.
 */

import { readKv } from "./kv_commit.ts";

/** Deno KV reads at most 10 keys per `getMany`. */
const GET_MANY_LIMIT = 10;
/** Batches in flight at once; further keys wait for the next batch. */
const MAX_IN_FLIGHT = 4;

interface Waiting {
  key: Deno.KvKey;
  waiters: { resolve: (e: Deno.KvEntryMaybe<unknown>) => void; reject: (err: unknown) => void }[];
}

/** A stable identity for a key made of strings, numbers, bigints and booleans. */
function idOf(key: Deno.KvKey): string {
  return key.map((p) => `${typeof p}:${String(p)}`).join("\u0000");
}

/** Coalesces strong reads of one KV handle; see the module comment for why it stays consistent. */
export class StrongReader {
  readonly #kv: Deno.Kv;
  #next = new Map<string, Waiting>();
  #inFlight = 0;
  #scheduled = false;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** The current value of `key`, read strongly after this call began. */
  get<T>(key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>> {
    return new Promise((resolve, reject) => {
      const id = idOf(key);
      let waiting = this.#next.get(id);
      if (!waiting) {
        waiting = { key, waiters: [] };
        this.#next.set(id, waiting);
      }
      waiting.waiters.push({
        resolve: resolve as (e: Deno.KvEntryMaybe<unknown>) => void,
        reject,
      });
      this.#schedule();
    });
  }

  /** Reads several keys, each strongly after this call began (like `getMany`). */
  getMany<T extends readonly unknown[]>(
    keys: readonly Deno.KvKey[],
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }> {
    return Promise.all(keys.map((k) => this.get(k))) as Promise<
      { [K in keyof T]: Deno.KvEntryMaybe<T[K]> }
    >;
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= MAX_IN_FLIGHT) return;
    this.#scheduled = true;
    // Keys asked for in the same turn of the event loop share the batch.
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  async #flush(): Promise<void> {
    if (this.#next.size === 0 || this.#inFlight >= MAX_IN_FLIGHT) return;
    const batch = [...this.#next.values()];
    this.#next = new Map();
    this.#inFlight++;
    try {
      const parts: Waiting[][] = [];
      for (let i = 0; i < batch.length; i += GET_MANY_LIMIT) {
        parts.push(batch.slice(i, i + GET_MANY_LIMIT));
      }
      await Promise.all(parts.map(async (part) => {
        try {
          const entries = await readKv(() => this.#kv.getMany(part.map((w) => w.key)));
          part.forEach((w, i) => w.waiters.forEach((x) => x.resolve(entries[i])));
        } catch (err) {
          part.forEach((w) => w.waiters.forEach((x) => x.reject(err)));
        }
      }));
    } finally {
      this.#inFlight--;
      if (this.#next.size > 0) this.#schedule();
    }
  }
}
