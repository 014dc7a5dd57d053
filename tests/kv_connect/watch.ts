/**
 * The watch stream of KV Connect v3 (kv-connect.md "Watch Request"): a first `WatchOutput` with
 * every key, then one whenever a watched key changes, each prefixed by its length as a 4-byte
 * little-endian integer; a zero-length message every 5 s tells the client the stream is alive
 * (denokv sends the same ping). Changes come from the local store's own `kv.watch`, which sees
 * every commit because every commit goes through this process.
 */
import { encodeWatchOutput, type WatchKeyOutput } from "./protocol.ts";
import { wireEntry } from "./store.ts";

const PING_MS = 5000;

function frame(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + message.length);
  new DataView(out.buffer).setUint32(0, message.length, true);
  out.set(message, 4);
  return out;
}

/** Which keys changed since `last` (all of them the first time), with their entries. */
function outputs(entries: Deno.KvEntryMaybe<unknown>[], last: (string | null)[] | undefined) {
  return entries.map((entry, i): WatchKeyOutput => {
    if (last && last[i] === entry.versionstamp) return { changed: false };
    return { changed: true, entry: entry.versionstamp === null ? undefined : wireEntry(entry) };
  });
}

/** A byte stream of watch messages for `keys`; `onEnd` runs once it ends or is cancelled. */
export function watchStream(
  kv: Deno.Kv,
  keys: Uint8Array[],
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  const reader = kv.watch(keys.map((k) => [k])).getReader();
  let last: (string | null)[] | undefined;
  let ping: ReturnType<typeof setInterval> | undefined;
  const end = () => {
    clearInterval(ping);
    onEnd();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      ping = setInterval(() => controller.enqueue(new Uint8Array(4)), PING_MS);
    },
    async pull(controller) {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          end();
          controller.close();
          return;
        }
        const keysOut = outputs(value, last);
        last = value.map((e) => e.versionstamp);
        if (keysOut.some((k) => k.changed)) {
          return controller.enqueue(frame(encodeWatchOutput(keysOut)));
        }
      }
    },
    async cancel() {
      end();
      await reader.cancel();
    },
  });
}
