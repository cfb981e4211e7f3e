/** The emails of contract requests (plain text; delivery `email` only). */
import type { MailMessage } from '../../../providers/mail/port';

export function invitationMail(
  p: { email: string; name: string },
  title: string,
  url: string,
  message: string | null,
  reminder = false,
): MailMessage {
  const lead = reminder ? 'A reminder: your signature is still needed.\n\n' : '';
  return {
    to: p.email,
    subject: reminder ? `Reminder: please review and sign "${title}"` : `Please review and sign "${title}"`,
    text:
      `Hello ${p.name},\n\n${lead}${message ? `${message}\n\n` : ''}You have been asked to review "${title}".\n\n` +
      `Open the document here: ${url}\n\nIf you did not expect this request, you can ignore this email.\n`,
  };
}

export function ccOnSendMail(
  c: { email: string; name: string | null },
  title: string,
  url: string,
): MailMessage {
  return {
    to: c.email,
    subject: `You are copied on "${title}"`,
    text: `Hello${c.name ? ` ${c.name}` : ''},\n\nYou are copied on "${title}". View it here (read only): ${url}\n`,
  };
}

export function completedMail(
  to: { email: string; name: string | null },
  title: string,
  files: { fileName: string; content: Buffer }[],
): MailMessage {
  return {
    to: to.email,
    subject: `Completed: "${title}"`,
    text: `Hello${to.name ? ` ${to.name}` : ''},\n\n"${title}" has been signed by everyone. The signed document is attached.\n`,
    attachments: files.map((f) => ({
      filename: f.fileName,
      content: f.content,
      contentType: 'application/pdf',
    })),
  };
}

export function otpMail(email: string, title: string, code: string): MailMessage {
  return {
    to: email,
    subject: `Your code to open "${title}"`,
    text: `Your code is ${code}. It is valid for 5 minutes.\n\nIf you did not try to open this document, ignore this email.\n`,
  };
}

export function paymentMail(
  email: string,
  title: string,
  url: string,
  amount: string,
  currency: string,
): MailMessage {
  return {
    to: email,
    subject: `Payment for "${title}": ${amount} ${currency}`,
    text: `Hello,\n\nThank you for signing "${title}". Please pay ${amount} ${currency} by bank here: ${url}\n`,
  };
}
