/**
 * A local SMTP server for tests (issue #24): `smtp-server` from npm on a loopback port, accepting
 * any credentials and keeping every message it receives, so a test reads what a member would find
 * in their inbox. STARTTLS is off (no certificate here): the client speaks plain SMTP to it.
 */

import { SMTPServer } from "smtp-server";

/** One message as received: the envelope and the raw RFC 5322 text. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The user name the client authenticated with, if any. */
  user: string | null;
  raw: string;
  /** The decoded `Subject:` header. */
  subject: string;
  /** The body, with quoted-printable soft breaks undone. */
  text: string;
}

/** A running local SMTP server. */
export interface LocalSmtp extends AsyncDisposable {
  /** `smtp://user:pass@127.0.0.1:<port>` */
  url: string;
  received: ReceivedMail[];
  /** Resolves with the first message to `to` (case-insensitive) after `after` were received. */
  waitFor(to: string, options?: { after?: number; timeoutMs?: number }): Promise<ReceivedMail>;
}

/** Undoes quoted-printable (RFC 2045 §6.7) well enough for the plain-text bodies we send. */
function decodeBody(raw: string): string {
  const [head, ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join("\n\n");
  if (!/quoted-printable/i.test(head)) return body;
  const bytes = body.replace(/=\r?\n/g, "").replace(
    /=([0-9A-F]{2})/g,
    (_, h) => String.fromCharCode(parseInt(h, 16)),
  );
  return new TextDecoder().decode(Uint8Array.from(bytes, (ch) => ch.charCodeAt(0)));
}

/** The `Subject:` header (folded lines joined; our subjects are ASCII). */
function subjectOf(raw: string): string {
  const m = raw.match(/^Subject: (.*(?:\r?\n[ \t].*)*)/m);
  return m ? m[1].replace(/\r?\n[ \t]/g, " ") : "";
}

/** Starts the server on 127.0.0.1 with a random port. Dispose with `await using`. */
export async function startSmtpServer(): Promise<LocalSmtp> {
  const received: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, cb) {
      cb(null, { user: auth.username });
    },
    onData(data, session, cb) {
      const chunks: Uint8Array[] = [];
      // a Node Readable; its typings need @types/node, which this project does not load
      const stream = data as unknown as { on(event: string, f: (c: Uint8Array) => void): void };
      stream.on("data", (c: Uint8Array) => chunks.push(c));
      stream.on("end", () => {
        const raw = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          user: (session.user as string | undefined) ?? null,
          raw,
          subject: subjectOf(raw),
          text: decodeBody(raw),
        });
        for (const wake of waiters) wake();
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://tester:secret@127.0.0.1:${port}`,
    received,
    async waitFor(to, { after = 0, timeoutMs = 10_000 } = {}) {
      const find = () =>
        received.slice(after).find((m) => m.to.some((a) => a.toLowerCase() === to.toLowerCase()));
      const deadline = Date.now() + timeoutMs;
      while (!find()) {
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, 50);
          waiters.add(() => {
            clearTimeout(t);
            r();
          });
        });
      }
      return find()!;
    },
    async [Symbol.asyncDispose]() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The first link to `path` (e.g. `/reset-password`) in a message's text. */
export function linkIn(mail: ReceivedMail, path: string): string {
  const m = mail.text.match(new RegExp(`https?://\\S+${path}\\?token=[\\w%-]+`));
  if (!m) throw new Error(`no ${path} link in: ${mail.text}`);
  return m[0];
}
