/** Reading a byte stream with a size cap, shared by request bodies and fetched documents. */

/** Thrown by `readCapped` when the stream carries more than the cap. */
export class StreamTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the stream exceeds ${maxBytes} bytes`);
    this.name = "StreamTooLargeError";
  }
}

/**
 * Reads `stream` to the end and returns its bytes, cancelling it and throwing
 * `StreamTooLargeError` as soon as more than `maxBytes` have arrived, so an oversized body is
 * never buffered whole.
 */
export async function readCapped(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new StreamTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
