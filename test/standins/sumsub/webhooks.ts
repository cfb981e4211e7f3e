/**
 * Signed webhooks of the stand-in (docs/webhooks, docs/user-verification-webhooks): JSON POSTed with
 * `x-payload-digest` (hex HMAC of the raw body with the webhook secret) and `x-payload-digest-alg`.
 * The tester can make them arrive twice, be held back and released out of order, or never be sent.
 */
import { createHmac } from 'node:crypto';
import type { Applicant } from './applicants';

export type DigestAlg = 'HMAC_SHA1_HEX' | 'HMAC_SHA256_HEX' | 'HMAC_SHA512_HEX';
const NODE_ALG: Record<DigestAlg, string> = {
  HMAC_SHA1_HEX: 'sha1',
  HMAC_SHA256_HEX: 'sha256',
  HMAC_SHA512_HEX: 'sha512',
};

export interface WebhookSettings {
  url: string | null;
  secret: string;
  alg: DigestAlg;
  /** Each webhook is sent twice (a resend after an ambiguous failure). */
  duplicate: boolean;
  /** Webhooks are queued instead of sent, until released. */
  hold: boolean;
  /** Webhooks are dropped (never sent). */
  drop: boolean;
}

export interface SentWebhook {
  type: string;
  body: string;
  status: number | null;
}

/** `sandboxMode` says which environment sent the webhook: true for a sandbox (`sbx:`) app token. */
export function webhookPayload(
  type: string,
  a: Applicant,
  now: Date,
  sandboxMode = false,
): Record<string, unknown> {
  return {
    applicantId: a.id,
    inspectionId: a.inspectionId,
    applicantType: a.type,
    correlationId: `req-${a.id}-${now.getTime()}`,
    levelName: a.review.levelName,
    externalUserId: a.externalUserId,
    type,
    sandboxMode,
    reviewStatus: a.review.reviewStatus,
    ...(type === 'applicantReviewed' && a.review.reviewResult ? { reviewResult: a.review.reviewResult } : {}),
    createdAt: now.toISOString().replace('T', ' ').slice(0, 19),
    createdAtMs: now.toISOString().replace('Z', ''),
    clientId: a.clientId,
  };
}

export function digest(alg: DigestAlg, secret: string, body: string): string {
  return createHmac(NODE_ALG[alg], secret).update(body).digest('hex');
}

export class WebhookSender {
  readonly sent: SentWebhook[] = [];
  private held: { type: string; body: string }[] = [];

  constructor(readonly settings: WebhookSettings) {}

  async send(type: string, payload: Record<string, unknown>): Promise<void> {
    const s = this.settings;
    if (!s.url || s.drop) return;
    const body = JSON.stringify(payload);
    if (s.hold) {
      this.held.push({ type, body });
      return;
    }
    await this.post(type, body);
    if (s.duplicate) await this.post(type, body);
  }

  /** Sends what was held, newest first (out of order), and stops holding. */
  async releaseHeld(order: 'reverse' | 'same' = 'reverse'): Promise<void> {
    const list = order === 'reverse' ? [...this.held].reverse() : [...this.held];
    this.held = [];
    this.settings.hold = false;
    for (const w of list) await this.post(w.type, w.body);
  }

  /** Sends the last webhook again, byte for byte. */
  async resendLast(): Promise<void> {
    const last = this.sent.at(-1);
    if (last) await this.post(last.type, last.body);
  }

  private async post(type: string, body: string): Promise<void> {
    const s = this.settings;
    let status: number | null = null;
    try {
      const res = await fetch(s.url!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-payload-digest': digest(s.alg, s.secret, body),
          'x-payload-digest-alg': s.alg,
        },
        body,
        // Sumsub counts no answer within 5 s as a timeout (docs/webhooks).
        signal: AbortSignal.timeout(5000),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch {
      status = null;
    }
    this.sent.push({ type, body, status });
  }
}
