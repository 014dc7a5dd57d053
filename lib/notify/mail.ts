/**
 * E-mail (issue #24): one plain-text message at a time over SMTP, configured by `SMTP_URL`
 * (`smtp://` or `smtps://user:pass@host:port`) and `SMTP_FROM`. Sending uses `nodemailer`, a
 * maintained npm client (RFC 5321 SMTP, RFC 3207 STARTTLS, RFC 4954 AUTH, RFC 5322 headers), which
 * loads under Deno's npm support; tests/http/email_test.ts runs it against a local `smtp-server`.
 *
 * `smtp://` upgrades to TLS whenever the server offers STARTTLS (nodemailer's default) and
 * `smtps://` is TLS from the first byte (RFC 8314 §3.3, implicit TLS, port 465): a password is
 * never sent in clear to a server that offers TLS.
 */

import nodemailer from "nodemailer";
import { logEvent } from "../foundation/log.ts";

/** The operator's SMTP settings (config `smtp`). */
export interface SmtpSettings {
  /** `SMTP_URL`: where and how to connect, credentials included. */
  url: string;
  /** `SMTP_FROM`: the `From:` of every message (RFC 5322 §3.6.2). */
  from: string;
}

/** One message: plain text, to one address. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends messages; `send` throws when the server refuses or cannot be reached. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** A server that has not answered within this is given up on: a page must not hang on it. */
const SMTP_TIMEOUT_MS = 15_000;

/** One transport per URL, kept for the process: nodemailer's transports are stateless between sends. */
const mailers = new Map<string, Mailer>();

/** The mailer of `settings`, or null when SMTP is not configured. */
export function mailerFor(settings: SmtpSettings | null): Mailer | null {
  if (!settings) return null;
  const id = `${settings.url}\n${settings.from}`;
  let mailer = mailers.get(id);
  if (!mailer) {
    const url = new URL(settings.url);
    const secure = url.protocol === "smtps:";
    const transport = nodemailer.createTransport({
      host: url.hostname.replace(/^\[|\]$/g, ""),
      port: url.port ? Number(url.port) : secure ? 465 : 587,
      secure,
      auth: url.username
        ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
        : undefined,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    });
    mailer = {
      async send({ to, subject, text }) {
        await transport.sendMail({ from: settings.from, to, subject, text });
      },
    };
    mailers.set(id, mailer);
  }
  return mailer;
}

/**
 * Sends `message`, never throwing: a failure is logged (host only, never the address or the
 * credentials) and reported as false, so a caller answers the same whether or not mail went out.
 */
export async function sendMail(mailer: Mailer, message: MailMessage): Promise<boolean> {
  try {
    await mailer.send(message);
    return true;
  } catch (err) {
    logEvent("warn", "mail: not sent", { cause: (err as Error).message.slice(0, 200) });
    return false;
  }
}
