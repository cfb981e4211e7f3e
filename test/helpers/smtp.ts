/**
 * A real SMTP server on loopback (smtp-server) that captures every message, so tests exercise the
 * production mail path (nodemailer over SMTP) end to end.
 */
import { SMTPServer } from 'smtp-server';
import type { Mailer } from '../../src/providers/mail/port';
import { createSmtpMailer } from '../../src/providers/mail/smtp';
import { harvestMailText } from './log-capture';

export interface CapturedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  text: string;
}

export interface SmtpCapture {
  url: string;
  messages: CapturedMail[];
  /** The mailer the app should use: real SMTP to this server. */
  mailer: Mailer;
  /** Reject the next N messages with a 5xx (to test delivery failures). */
  failNext(n: number): void;
  /** An outage: while down, every connection is refused with 421 (service not available). */
  setDown(down: boolean): void;
  /** Latest message to `to`, waiting briefly for it to arrive. */
  waitFor(to: string, match?: RegExp, timeoutMs?: number): Promise<CapturedMail>;
  /** The first run of `digits` digits in the latest message to `to` (verification and OTP codes). */
  codeFor(to: string, digits?: number): Promise<string>;
  close(): Promise<void>;
}

function decodeBody(raw: string): { subject: string; text: string } {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const subject = /^Subject: (.*)$/im.exec(head)?.[1]?.trim() ?? '';
  let text = rest.join('\n\n');
  if (/Content-Transfer-Encoding: quoted-printable/i.test(raw)) {
    text = text
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(Number.parseInt(h, 16)));
  }
  return { subject, text };
}

export async function startSmtpCapture(): Promise<SmtpCapture> {
  const messages: CapturedMail[] = [];
  let failures = 0;
  let down = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      if (!down) return callback();
      const err = new Error('Service not available') as Error & { responseCode: number };
      err.responseCode = 421;
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failures > 0) {
          failures--;
          const err = new Error('Mailbox unavailable') as Error & { responseCode: number };
          err.responseCode = 550;
          return callback(err);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const decoded = decodeBody(raw);
        harvestMailText(decoded.text, 'smtp mail');
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          ...decoded,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  const url = `smtp://127.0.0.1:${port}`;
  const mailer = createSmtpMailer(url, 'Payments Platform <no-reply@example.test>');

  const latest = (to: string, match?: RegExp) =>
    [...messages]
      .reverse()
      .find((m) => m.to.some((t) => t.toLowerCase() === to.toLowerCase()) && (!match || match.test(m.text)));

  const capture: SmtpCapture = {
    url,
    messages,
    mailer,
    failNext(n) {
      failures = n;
    },
    setDown(value) {
      down = value;
    },
    async waitFor(to, match, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = latest(to, match);
        if (m) return m;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async codeFor(to, digits = 6) {
      const m = await capture.waitFor(to, new RegExp(`\\b\\d{${digits}}\\b`));
      return new RegExp(`\\b(\\d{${digits}})\\b`).exec(m.text)![1]!;
    },
    async close() {
      await mailer.close?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return capture;
}
