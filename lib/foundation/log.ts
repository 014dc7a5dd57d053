/**
 * The service's log: one line per request (`RequestLog`) and one per notable event (`logEvent`),
 * JSON by default (one object per line, for a log shipper) or `LOG_FORMAT=text` for a person at a
 * terminal. What a line may carry is fixed here, so nothing else can leak into it: a route pattern
 * (never the raw path or query, where a code or token may travel), a status, a duration, and the
 * member as a salted, truncated SHA-256 — never a token, cookie, password, code or health value
 * (DESIGN §7; OWASP Logging Cheat Sheet "Data to exclude"). Lines are buffered and written in
 * batches, so a request costs a string, not a write.
 */

import { AppError } from "./errors.ts";

/** `json` (default), `text` for humans, `off` (tests; events are still written). */
export type LogFormat = "json" | "text" | "off";

/** One answered request. */
export interface RequestLine {
  requestId: string;
  method: string;
  /** The route pattern that answered (`/docs/:slug`), `unmatched` for a 404 with no route. */
  route: string;
  status: number;
  durationMs: number;
  /** Salted SHA-256 of the member id, 16 hex digits; null for anonymous requests. */
  member: string | null;
  /** The client closed the connection before the answer was complete. */
  aborted: boolean;
}

/** Every credential prefix the service mints, and the shape of a bearer header. */
const SECRET_PATTERN =
  /\b(rt_[a-z]{2,4}_)[A-Za-z0-9_\-.~+/=]+|(Bearer\s+)\S+|(password|code|token|secret)=[^&\s]+/gi;

/**
 * Masks anything shaped like a credential in free text (an error message may quote its input):
 * a second line of defence behind the rule that log calls pass no secrets.
 */
export function redactSecrets(text: string): string {
  return text.replace(
    SECRET_PATTERN,
    (_m, prefix, bearer, field) =>
      prefix ? `${prefix}[redacted]` : bearer ? `${bearer}[redacted]` : `${field}=[redacted]`,
  );
}

const FLUSH_AFTER_MS = 10;
const FLUSH_AT_LINES = 256;
const encoder = new TextEncoder();

/** A buffered line writer (stdout by default); flushes every 10 ms, at 256 lines and on close. */
export class LineWriter {
  #pending: string[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #write: (bytes: Uint8Array) => void;

  constructor(write: (bytes: Uint8Array) => void = writeAllToStdout) {
    this.#write = write;
  }

  line(text: string): void {
    this.#pending.push(text);
    if (this.#pending.length >= FLUSH_AT_LINES) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), FLUSH_AFTER_MS);
  }

  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0) return;
    const text = this.#pending.join("\n") + "\n";
    this.#pending = [];
    try {
      this.#write(encoder.encode(text));
    } catch {
      // A closed stdout must not take requests down with it.
    }
  }
}

function writeAllToStdout(bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += Deno.stdout.writeSync(bytes.subarray(offset));
}

/** Hashes member ids with a salt (SHA-256, 16 hex digits), caching recent ones. */
export class MemberHasher {
  readonly #salt: string;
  readonly #cache = new Map<string, string>();

  /** `salt` should be shared by instances whose lines are read together (`LOG_SALT`). */
  constructor(salt: string) {
    this.#salt = salt;
  }

  /** The hash, synchronously when cached. */
  hash(memberId: string): string | Promise<string> {
    const cached = this.#cache.get(memberId);
    if (cached !== undefined) return cached;
    return crypto.subtle.digest("SHA-256", encoder.encode(`${this.#salt}:${memberId}`)).then(
      (digest) => {
        const hex = Array.from(new Uint8Array(digest, 0, 8), (b) => b.toString(16).padStart(2, "0"))
          .join("");
        if (this.#cache.size >= 10_000) this.#cache.clear();
        this.#cache.set(memberId, hex);
        return hex;
      },
    );
  }
}

let isoMs = NaN;
let isoText = "";

/**
 * The current time in ISO 8601, formatted once per millisecond: a busy server writes many lines in
 * each, and `toISOString` was over a µs of each request's log line (issue #13, CPU profile).
 */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

/** Writes request lines in one format. */
export class RequestLog {
  readonly #format: "json" | "text";
  readonly #writer: LineWriter;
  readonly #hasher: MemberHasher;

  constructor(options: { format: "json" | "text"; salt: string; writer?: LineWriter }) {
    this.#format = options.format;
    this.#writer = options.writer ?? stdoutWriter;
    this.#hasher = new MemberHasher(options.salt);
  }

  /**
   * Logs one request. The member id is hashed here (usually from the cache); the line is
   * written after the answer, never delaying it.
   */
  request(line: Omit<RequestLine, "member">, memberId: string | undefined): void {
    if (memberId === undefined) return this.#emit(line, null);
    const hashed = this.#hasher.hash(memberId);
    if (typeof hashed === "string") return this.#emit(line, hashed);
    hashed.then((member) => this.#emit(line, member));
  }

  /** Formats by hand: one string per request, no intermediate objects (the hot path). */
  #emit(line: Omit<RequestLine, "member">, member: string | null): void {
    const time = isoNow();
    if (this.#format === "json") {
      this.#writer.line(
        `{"time":"${time}","level":"info","msg":"request","requestId":${
          JSON.stringify(line.requestId)
        },"method":${JSON.stringify(line.method)},"route":${JSON.stringify(line.route)},` +
          `"status":${line.status},"durationMs":${line.durationMs},"member":${
            member === null ? "null" : `"${member}"`
          },"aborted":${line.aborted}}`,
      );
      return;
    }
    this.#writer.line(
      `${time} ${line.requestId} ${line.method} ${line.route} ${line.status} ` +
        `${line.durationMs}ms${member ? ` member=${member}` : ""}${line.aborted ? " aborted" : ""}`,
    );
  }

  flush(): void {
    this.#writer.flush();
  }
}

/** The process's stdout writer, shared by request lines and events so lines never interleave. */
export const stdoutWriter: LineWriter = new LineWriter();

let eventFormat: "json" | "text" = "json";

/** Sets the format of event lines (the service calls it once with its `LOG_FORMAT`). */
export function setEventLogFormat(format: LogFormat): void {
  eventFormat = format === "text" ? "text" : "json";
}

/** Fields of an event line: plain values only, never a credential or a member's data. */
export type EventFields = Record<string, string | number | boolean | null | undefined>;

/** Logs an event (start-up, a failed health check, KV busy): a message and plain fields. */
export function logEvent(
  level: "info" | "warn" | "error",
  msg: string,
  fields: EventFields = {},
): void {
  writeEvent({ time: new Date().toISOString(), level, msg, ...fields });
}

/**
 * Logs an error with its message and stack, both passed through `redactSecrets` (an error may
 * quote the input that caused it). An `AppError` is an expected failure whose code and message say
 * what happened: it is logged without a stack (issue #19: a full disk fails every write, and a
 * stack per failure floods the log that tells the operator).
 */
export function logError(msg: string, error: unknown, fields: EventFields = {}): void {
  const e = error instanceof Error ? error : new Error(String(error));
  const expected = e instanceof AppError;
  writeEvent({
    time: new Date().toISOString(),
    level: "error",
    msg,
    ...fields,
    error: redactSecrets(`${e.name}: ${e.message}`),
    code: expected ? e.code : undefined,
    stack: e.stack && !expected ? redactSecrets(e.stack) : undefined,
  });
}

/** Written at once: events are rare and may precede a crash. */
function writeEvent(out: Record<string, unknown>): void {
  if (eventFormat === "json") {
    stdoutWriter.line(JSON.stringify(out));
  } else {
    const extra = Object.entries(out)
      .filter(([k, v]) => v !== undefined && !["time", "level", "msg", "stack"].includes(k))
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(" ");
    const level = String(out.level).toUpperCase();
    stdoutWriter.line(`${out.time} ${level} ${out.msg}${extra ? " " + extra : ""}`);
    if (out.stack) stdoutWriter.line(String(out.stack));
  }
  stdoutWriter.flush();
}
