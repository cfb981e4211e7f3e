import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import { MailDeliveryError, type Mailer, type MailMessage } from './port';

/**
 * The embedded default without SMTP_URL: each message is written as an .eml file under
 * `<dataDir>/mail/`, so a developer can read codes locally, and its recipient, subject and file
 * are logged (never its body: codes and temporary passwords stay out of logs). Never used in production.
 */
export function createLocalMailer(dir: string, from: string, log: FastifyBaseLogger): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(m: MailMessage) {
      try {
        const info = await transport.sendMail({
          from,
          to: m.to,
          subject: m.subject,
          text: m.text,
          html: m.html,
          attachments: m.attachments,
        });
        await fs.mkdir(dir, { recursive: true });
        const file = path.join(
          dir,
          `${new Date().toISOString().replace(/[:.]/g, '-')}-${Math.random().toString(36).slice(2, 8)}.eml`,
        );
        await fs.writeFile(file, info.message as Buffer);
        // Metadata only: bodies carry codes and temporary passwords; read them in the .eml file.
        log.info({ mail: { to: m.to, subject: m.subject, file } }, 'email written to local mail folder');
      } catch (err) {
        throw new MailDeliveryError(err);
      }
    },
  };
}
