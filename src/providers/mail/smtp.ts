import nodemailer from 'nodemailer';
import { MailDeliveryError, type Mailer, type MailMessage } from './port';

/** Real SMTP through nodemailer (SMTP_URL). */
export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(m: MailMessage) {
      try {
        await transport.sendMail({
          from,
          to: m.to,
          subject: m.subject,
          text: m.text,
          html: m.html,
          attachments: m.attachments,
        });
      } catch (err) {
        throw new MailDeliveryError(err);
      }
    },
    async close() {
      transport.close();
    },
  };
}
