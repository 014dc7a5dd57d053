/**
 * denokv's limits (denoland/denokv `proto/limits.rs`, v0.12.0) and its checks of a request
 * (`proto/convert.rs`), each refused with HTTP 400 and denokv's own text (`denokv/main.rs`
 * `ApiError`), so a test sees what a client of a real denokv would.
 */
import type { AtomicWrite, Mutation, ReadRange } from "./protocol.ts";
import { M_DELETE, M_MAX, M_MIN, M_SET, M_SUM } from "./protocol.ts";
import { BadRequest } from "./store.ts";

export const MAX_WRITE_KEY_SIZE_BYTES = 2048;
export const MAX_READ_KEY_SIZE_BYTES = MAX_WRITE_KEY_SIZE_BYTES + 1;
export const MAX_VALUE_SIZE_BYTES = 65536;
export const MAX_READ_RANGES = 10;
export const MAX_READ_ENTRIES = 1000;
export const MAX_CHECKS = 10;
export const MAX_MUTATIONS = 1000;
export const MAX_TOTAL_MUTATION_SIZE_BYTES = 819200;
export const MAX_WATCHED_KEYS = 10;

/** denokv's texts, word for word. */
export const TEXT = {
  keyTooLong: "A key exceeds the key size limit.",
  valueTooLong: "A value exceeds the value size limit.",
  readRangeTooLarge:
    "The total number of entries requested across read ranges in the read request is too large.",
  atomicWriteTooLarge: "The total size of the atomic write is too large.",
  tooManyReadRanges: "Too many read ranges requested in one read request.",
  tooManyWatchedKeys: "Too many keys watched in a single watch request.",
  tooManyChecks: "Too many checks included in atomic write.",
  tooManyMutations: "Too many mutations / enqueues included in atomic write.",
  invalidReadRangeLimit: "The read range limit of the snapshot read request is invalid.",
  invalidVersionstamp: "Invalid versionstamp.",
  invalidMutationKind: "Invalid mutation kind or arguments.",
  invalidMutationExpireAt: "Invalid mutation expire at.",
  // Not denokv's (denokv keeps queues); the Deno client's own refusal, which KV Connect implies.
  enqueue: "Enqueue operations are not supported in KV Connect",
} as const;

/** Refuses a snapshot read outside denokv's limits. */
export function checkReadRanges(ranges: ReadRange[]): void {
  if (ranges.length > MAX_READ_RANGES) throw new BadRequest(TEXT.tooManyReadRanges);
  let total = 0;
  for (const range of ranges) {
    if (!(range.limit > 0)) throw new BadRequest(TEXT.invalidReadRangeLimit);
    if (
      range.start.length > MAX_READ_KEY_SIZE_BYTES || range.end.length > MAX_READ_KEY_SIZE_BYTES
    ) {
      throw new BadRequest(TEXT.keyTooLong);
    }
    total += range.limit;
  }
  if (total > MAX_READ_ENTRIES) throw new BadRequest(TEXT.readRangeTooLarge);
}

/** The bytes a mutation adds to the atomic's total, after refusing a malformed one. */
function mutationSize(m: Mutation): number {
  if (m.key.length > MAX_WRITE_KEY_SIZE_BYTES) throw new BadRequest(TEXT.keyTooLong);
  const valueSize = m.value?.data.length ?? 0;
  if (valueSize > MAX_VALUE_SIZE_BYTES) throw new BadRequest(TEXT.valueTooLong);
  const needsValue = [M_SET, M_SUM, M_MIN, M_MAX].includes(m.type);
  if (!(needsValue && m.value) && m.type !== M_DELETE) {
    throw new BadRequest(TEXT.invalidMutationKind);
  }
  if (m.expireAtMs < -1n) throw new BadRequest(TEXT.invalidMutationExpireAt);
  return m.key.length + valueSize;
}

/** Refuses an atomic write outside denokv's limits, or one carrying an enqueue. */
export function checkAtomicWrite(write: AtomicWrite): void {
  if (write.checks.length > MAX_CHECKS) throw new BadRequest(TEXT.tooManyChecks);
  if (write.mutations.length + write.enqueues.length > MAX_MUTATIONS) {
    throw new BadRequest(TEXT.tooManyMutations);
  }
  let total = 0;
  for (const check of write.checks) {
    if (check.key.length > MAX_READ_KEY_SIZE_BYTES) throw new BadRequest(TEXT.keyTooLong);
    if (check.versionstamp.length !== 0 && check.versionstamp.length !== 10) {
      throw new BadRequest(TEXT.invalidVersionstamp);
    }
    total += check.key.length;
  }
  for (const m of write.mutations) total += mutationSize(m);
  for (const e of write.enqueues) {
    total += e.payload.length + e.keysIfUndelivered.reduce((n, k) => n + k.length, 0);
    total += 4 * e.backoffSchedule.length;
  }
  if (total > MAX_TOTAL_MUTATION_SIZE_BYTES) throw new BadRequest(TEXT.atomicWriteTooLarge);
  if (write.enqueues.length > 0) throw new BadRequest(TEXT.enqueue);
}

/** Refuses a watch of too many or too long keys. */
export function checkWatchKeys(keys: Uint8Array[]): void {
  if (keys.length > MAX_WATCHED_KEYS) throw new BadRequest(TEXT.tooManyWatchedKeys);
  if (keys.some((k) => k.length > MAX_WRITE_KEY_SIZE_BYTES)) throw new BadRequest(TEXT.keyTooLong);
}
