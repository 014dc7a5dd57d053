/** Raw HTTP/1.1 over TCP for tests that must control exactly what a client sends and when. */

/** Options of `rawUpload`. */
export interface RawUploadOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:41234`. */
  url: string;
  path: string;
  headers: Record<string, string>;
  /** Body bytes the client tries to send (it stops as soon as the answer arrives). */
  bodyBytes: number;
  /** Frame the body as `Transfer-Encoding: chunked` (no `Content-Length`). */
  chunked: boolean;
}

/** What came back, and how much of the body the client managed to send before it did. */
export interface RawUploadResult {
  status: number;
  head: string;
  sentBytes: number;
}

const CHUNK = new Uint8Array(1024 * 1024).fill(0x61); // 1 MiB of "a"
const encoder = new TextEncoder();

function requestHead(o: RawUploadOptions): string {
  const host = new URL(o.url).host;
  const lines = [`POST ${o.path} HTTP/1.1`, `Host: ${host}`, "Connection: close"];
  for (const [k, v] of Object.entries(o.headers)) lines.push(`${k}: ${v}`);
  lines.push(o.chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${o.bodyBytes}`);
  return lines.join("\r\n") + "\r\n\r\n";
}

/** Reads from `conn` until the response head is complete (or the connection ends). */
async function readHead(conn: Deno.Conn): Promise<string> {
  const buf = new Uint8Array(16 * 1024);
  let text = "";
  while (!text.includes("\r\n\r\n")) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return text;
}

/**
 * Streams a large body to the service the way an abusive client would, while listening for the
 * answer; stops writing once the answer has come (or the server closed the connection).
 */
export async function rawUpload(o: RawUploadOptions): Promise<RawUploadResult> {
  const { hostname, port } = new URL(o.url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  let answered = false;
  const head = readHead(conn).then((h) => {
    answered = true;
    return h;
  });
  let sentBytes = 0;
  try {
    await conn.write(encoder.encode(requestHead(o)));
    const frame = encoder.encode(`${CHUNK.byteLength.toString(16)}\r\n`);
    while (!answered && sentBytes < o.bodyBytes) {
      if (o.chunked) await writeAll(conn, frame);
      await writeAll(conn, CHUNK);
      if (o.chunked) await writeAll(conn, encoder.encode("\r\n"));
      sentBytes += CHUNK.byteLength;
    }
    if (o.chunked && !answered) await writeAll(conn, encoder.encode("0\r\n\r\n"));
  } catch {
    // The server closed the connection after answering: the upload was cut off, as it should be.
  }
  const text = await head;
  try {
    conn.close();
  } catch {
    // already closed
  }
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  return { status, head: text, sentBytes };
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) offset += await conn.write(bytes.subarray(offset));
}

/** Sends a request head and part of its body (declared or chunked), then hangs up. */
export async function abortMidBody(
  url: string,
  path: string,
  options: { headers: Record<string, string>; chunked: boolean },
): Promise<void> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const framing = options.chunked ? "Transfer-Encoding: chunked" : "Content-Length: 4000";
  const head = [`POST ${path} HTTP/1.1`, `Host: ${new URL(url).host}`, framing];
  for (const [k, v] of Object.entries(options.headers)) head.push(`${k}: ${v}`);
  const part = options.chunked ? 'd\r\n{"action":"he\r\n' : '{"action":"he';
  await writeAll(conn, encoder.encode(head.join("\r\n") + "\r\n\r\n" + part));
  conn.close();
}

/** Resident set size and its peak of process `pid`, in bytes (Linux `/proc/<pid>/status`). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]);
  return { rss: kb("VmRSS") * 1024, peak: kb("VmHWM") * 1024 };
}
