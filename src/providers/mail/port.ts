export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
}

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

/** Outbound email. `send` throws MailDeliveryError when the message could not be handed over. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close?(): Promise<void>;
}

export class MailDeliveryError extends Error {
  constructor(cause: unknown) {
    super('mail delivery failed', { cause });
    this.name = 'MailDeliveryError';
  }
}
