/**
 * Documenso's webhook calls as its documentation describes them: POST JSON
 * `{ event, payload, createdAt, webhookEndpoint }` with the configured secret as plain text in
 * `X-Documenso-Secret`; `payload` is the document with its recipients (`envelopeId` names it).
 * A test can have every call sent twice, held and delivered in reverse order, or not sent at all.
 */
import { type Envelope, recipientView } from './store';

export interface SentWebhook {
  event: string;
  envelopeId: string;
  status: number | null;
}

export class WebhookSender {
  url: string | null;
  secret: string;
  /** Every call is sent twice. */
  duplicate = false;
  /** Calls are held until `flush()`, which sends them newest first. */
  hold = false;
  /** Calls are dropped (Documenso gave up). */
  drop = false;
  readonly sent: SentWebhook[] = [];
  private readonly held: { body: string; event: string; envelopeId: string }[] = [];

  constructor(url: string | null, secret: string) {
    this.url = url;
    this.secret = secret;
  }

  async send(event: string, e: Envelope, legacyId: number): Promise<void> {
    if (!this.url || this.drop) return;
    const recipients = e.recipients.map((r) => ({
      ...recipientView(r),
      documentId: legacyId,
      templateId: null,
    }));
    const body = JSON.stringify({
      event,
      payload: {
        id: legacyId,
        envelopeId: e.id,
        externalId: e.externalId,
        userId: 1,
        authOptions: null,
        formValues: null,
        visibility: 'EVERYONE',
        title: e.title,
        status: e.status,
        createdAt: e.createdAt,
        updatedAt: e.updatedAt,
        completedAt: e.completedAt,
        deletedAt: e.deletedAt,
        teamId: 1,
        templateId: null,
        source: 'DOCUMENT',
        documentMeta: null,
        recipients,
        Recipient: recipients,
      },
      createdAt: new Date().toISOString(),
      webhookEndpoint: this.url,
    });
    if (this.hold) {
      this.held.push({ body, event, envelopeId: e.id });
      return;
    }
    await this.post(body, event, e.id);
    if (this.duplicate) await this.post(body, event, e.id);
  }

  /** Sends the held calls, newest first (and each twice when `duplicate`). */
  async flush(): Promise<void> {
    const calls = this.held.splice(0).reverse();
    for (const c of calls) {
      await this.post(c.body, c.event, c.envelopeId);
      if (this.duplicate) await this.post(c.body, c.event, c.envelopeId);
    }
  }

  private async post(body: string, event: string, envelopeId: string): Promise<void> {
    let status: number | null = null;
    try {
      const res = await fetch(this.url!, {
        method: 'POST',
        body,
        redirect: 'manual',
        headers: { 'content-type': 'application/json', 'x-documenso-secret': this.secret },
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch {
      status = null;
    }
    this.sent.push({ event, envelopeId, status });
  }
}
